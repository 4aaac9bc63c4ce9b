#include "attribution/snapshot_processes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::attribution {
namespace snapshot_processes_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

core::DeviceSnapshot gpu(unsigned index, const std::string& uuid, std::vector<unsigned> pids) {
  core::DeviceSnapshot d;
  d.index = index;
  d.get(core::FieldId::Uuid) = core::FieldReading::of(uuid);
  for (unsigned pid : pids) {
    core::ProcessSample p;
    p.pid = pid;
    d.processes.push_back(p);
  }
  return d;
}

TEST(SnapshotProcesses, EveryProcessWithItsGpu) {
  core::Snapshot snap;
  snap.devices = {gpu(0, "GPU-a", {10, 11}), gpu(1, "GPU-b", {10})};
  auto processes = gpu_processes(snap);
  ASSERT_EQ(processes.size(), 3u);
  EXPECT_EQ(processes[2].pid, 10u);
  EXPECT_EQ(processes[2].gpu_index, 1u);
  EXPECT_EQ(processes[2].gpu_uuid, "GPU-b");
}

TEST(SnapshotProcesses, DeviceOwnersGiveTheGpuLabels) {
  fs::path root = fs::temp_directory_path() / ("gpuwatch-snapattr-" + std::to_string(getpid()));
  fs::create_directories(root / "10");
  std::ofstream(root / "10" / "cgroup") << "0::/kubepods.slice/kubepods-podaaaa.slice/cri-containerd-"
                                        << std::string(64, 'a') << ".scope\n";
  std::ofstream(root / "10" / "stat") << "10 (python) S 1 1 1 0 -1 0 0 0 0 0 5 3 0 0 20 0 1 0 42 1 1\n";
  AttributorOptions options;
  options.proc_root = root.string();
  options.list_pods = [] { return core::Result<PodResourceList>(PodResourceList{{"p", "ns", "c", "nvidia.com/gpu", {"GPU-a"}}}); };
  options.log = [](const std::string&) {};
  Attributor attributor(options);
  attributor.refresh();
  auto owners = attribute_device(attributor, gpu(0, "GPU-a", {10}));
  EXPECT_EQ(owners.processes.at(10).pod_name, "p");
  EXPECT_EQ(owners.labels.pod, "p");
  EXPECT_EQ(owners.labels.pod_namespace, "ns");
  auto idle = attribute_device(attributor, gpu(1, "GPU-b", {}));
  EXPECT_TRUE(idle.processes.empty());
  EXPECT_EQ(idle.labels.pod, "");
  fs::remove_all(root);
}

}  // namespace snapshot_processes_test
}  // namespace gpuwatch::attribution
