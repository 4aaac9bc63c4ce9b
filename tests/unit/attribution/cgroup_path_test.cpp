#include "attribution/cgroup_path.hpp"

#include <gtest/gtest.h>

// Fixtures: /proc/PID/cgroup as real systems write it (shapes from docker, containerd, CRI-O,
// podman, kubelet's systemd and cgroupfs drivers, slurmd's cgroup v1 and v2 plugins).
namespace gpuwatch::attribution {
namespace cgroup_path_test {  // this test file's helpers (unity builds: no clash with another file's)

const std::string kId = "3f4e8c2b9a1d7e6f5c4b3a2918273645d6e7f8091a2b3c4d5e6f708192a3b4c5";

TEST(CgroupPath, DockerSystemdDriverV2) {
  auto a = parse_cgroup_file("0::/system.slice/docker-" + kId + ".scope\n");
  EXPECT_EQ(a.runtime, Runtime::Docker);
  EXPECT_EQ(a.container_id, kId);
  EXPECT_FALSE(a.pod_uid);
  EXPECT_FALSE(a.slurm_job_id);
}

TEST(CgroupPath, DockerCgroupfsDriverV1) {
  std::string file = "12:pids:/docker/" + kId + "\n11:memory:/docker/" + kId + "\n1:name=systemd:/docker/" + kId + "\n";
  auto a = parse_cgroup_file(file);
  EXPECT_EQ(a.runtime, Runtime::Docker);
  EXPECT_EQ(a.container_id, kId);
}

TEST(CgroupPath, DockerNeedsAFullIdUnderCgroupfs) {
  EXPECT_FALSE(parse_cgroup_file("0::/docker/not-a-container\n").container_id);
}

TEST(CgroupPath, ContainerdBurstablePodWithUnderscoredUid) {
  auto a = parse_cgroup_file(
      "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6b2d54a1_8f3c_4e2a_9d71_0c5e3b8a4f12.slice/"
      "cri-containerd-" + kId + ".scope\n");
  EXPECT_EQ(a.runtime, Runtime::Containerd);
  EXPECT_EQ(a.container_id, kId);
  EXPECT_EQ(a.pod_uid, "6b2d54a1-8f3c-4e2a-9d71-0c5e3b8a4f12");  // underscores back to dashes
  EXPECT_EQ(a.pod_qos, "burstable");
}

TEST(CgroupPath, GuaranteedPodHasNoQosSlice) {
  auto a = parse_cgroup_file("0::/kubepods.slice/kubepods-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/cri-containerd-" +
                             kId + ".scope\n");
  EXPECT_EQ(a.pod_uid, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
  EXPECT_EQ(a.pod_qos, "guaranteed");
}

TEST(CgroupPath, BestEffortPodUnderCriO) {
  auto a = parse_cgroup_file(
      "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod11111111_2222_3333_4444_555555555555.slice/"
      "crio-" + kId + ".scope\n");
  EXPECT_EQ(a.runtime, Runtime::CriO);
  EXPECT_EQ(a.container_id, kId);
  EXPECT_EQ(a.pod_qos, "besteffort");
}

TEST(CgroupPath, CriOConmonIsNotTheContainer) {
  auto a = parse_cgroup_file("0::/kubepods.slice/kubepods-besteffort.slice/"
                             "kubepods-besteffort-pod11111111_2222_3333_4444_555555555555.slice/crio-conmon-" + kId +
                             ".scope\n");
  EXPECT_FALSE(a.container_id);
  EXPECT_EQ(a.pod_uid, "11111111-2222-3333-4444-555555555555");
}

TEST(CgroupPath, KubernetesCgroupfsDriverV1) {
  std::string path = "/kubepods/burstable/pod7a1c9e3e-1f0b-4c8a-a1d2-9e8f7c6b5a49/" + kId;
  auto a = parse_cgroup_file("11:devices:" + path + "\n4:memory:" + path + "\n");
  EXPECT_EQ(a.pod_uid, "7a1c9e3e-1f0b-4c8a-a1d2-9e8f7c6b5a49");
  EXPECT_EQ(a.pod_qos, "burstable");
  EXPECT_EQ(a.container_id, kId);
  EXPECT_FALSE(a.runtime);  // cgroupfs paths do not name the runtime
}

TEST(CgroupPath, KubernetesCgroupfsGuaranteed) {
  auto a = parse_cgroup_file("0::/kubepods/pod7a1c9e3e-1f0b-4c8a-a1d2-9e8f7c6b5a49/" + kId + "\n");
  EXPECT_EQ(a.pod_qos, "guaranteed");
  EXPECT_EQ(a.container_id, kId);
}

TEST(CgroupPath, PodmanRootfulAndCgroupfs) {
  auto a = parse_cgroup_file("0::/machine.slice/libpod-" + kId + ".scope/container\n");
  EXPECT_EQ(a.runtime, Runtime::Podman);
  EXPECT_EQ(a.container_id, kId);
  auto b = parse_cgroup_file("0::/libpod_parent/libpod-" + kId + "\n");
  EXPECT_EQ(b.runtime, Runtime::Podman);
  EXPECT_EQ(b.container_id, kId);
  auto rootless = parse_cgroup_file("0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + kId +
                                    ".scope\n");
  EXPECT_EQ(rootless.container_id, kId);
}

TEST(CgroupPath, SlurmV1) {
  std::string file =
      "10:devices:/slurm/uid_1001/job_4821/step_0/task_0\n"
      "7:cpuset:/slurm/uid_1001/job_4821/step_0\n"
      "4:memory:/slurm/uid_1001/job_4821/step_0/task_0\n"
      "1:name=systemd:/system.slice/slurmd.service\n";
  auto a = parse_cgroup_file(file);
  EXPECT_EQ(a.slurm_job_id, "4821");
  EXPECT_EQ(a.slurm_step, "0");
  EXPECT_EQ(a.slurm_user, "1001");
  EXPECT_FALSE(a.runtime);
}

TEST(CgroupPath, SlurmV2BatchAndNodeScopedStepd) {
  auto a = parse_cgroup_file("0::/system.slice/slurmstepd.scope/job_77/step_batch/user/task_0\n");
  EXPECT_EQ(a.slurm_job_id, "77");
  EXPECT_EQ(a.slurm_step, "batch");
  EXPECT_FALSE(a.slurm_user);  // v2 paths carry no uid
  auto b = parse_cgroup_file("0::/system.slice/gpu-node-3_slurmstepd.scope/job_78/step_extern/user/task_special\n");
  EXPECT_EQ(b.slurm_job_id, "78");
  EXPECT_EQ(b.slurm_step, "extern");
}

TEST(CgroupPath, InsideACgroupNamespaceNothingIsKnown) {
  EXPECT_TRUE(parse_cgroup_file("0::/\n").empty());
  EXPECT_TRUE(parse_cgroup_file("0::/init.scope\n").empty());
  EXPECT_TRUE(parse_cgroup_file("0::/user.slice/user-1000.slice/session-3.scope\n").empty());
}

TEST(CgroupPath, MalformedLinesAreSkipped) {
  auto a = parse_cgroup_file("garbage\n\n0:/docker\n0::/system.slice/docker-" + kId + ".scope");
  EXPECT_EQ(a.container_id, kId);  // last line without a newline still read
}

}  // namespace cgroup_path_test
}  // namespace gpuwatch::attribution
