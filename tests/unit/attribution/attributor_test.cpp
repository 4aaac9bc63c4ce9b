#include "attribution/attributor.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

namespace gpuwatch::attribution {
namespace attributor_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace std::string_literals;

const std::string kId = "3f4e8c2b9a1d7e6f5c4b3a2918273645d6e7f8091a2b3c4d5e6f708192a3b4c5";

std::string stat_line(unsigned pid, unsigned long start) {
  return std::to_string(pid) + " (python) S 1 1 1 0 -1 0 0 0 0 0 5 3 0 0 20 0 1 0 " + std::to_string(start) + " 1 1";
}

class AttributorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuwatch-attr-" + std::to_string(getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void process(unsigned pid, const std::string& cgroup, const std::string& environ, unsigned long start = 100) {
    fs::create_directories(root_ / std::to_string(pid));
    std::ofstream(root_ / std::to_string(pid) / "cgroup") << cgroup;
    std::ofstream(root_ / std::to_string(pid) / "environ", std::ios::binary) << environ;
    std::ofstream(root_ / std::to_string(pid) / "stat") << stat_line(pid, start);
    std::ofstream(root_ / std::to_string(pid) / "status") << "Name:\tpython\nNSpid:\t" << pid << "\t1\n";
  }
  AttributorOptions options() {
    AttributorOptions o;
    o.proc_root = root_.string();
    o.log = [this](const std::string& line) { logs_.push_back(line); };
    return o;
  }
  fs::path root_;
  std::vector<std::string> logs_;
};

TEST_F(AttributorTest, PodNamesFromTheListAndContainerNamesFromTheEngine) {
  process(10, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podaaaa_bb.slice/cri-containerd-" + kId +
                  ".scope\n",
          "HOSTNAME=trainer-0\0"s);
  process(11, "0::/system.slice/docker-" + kId + ".scope\n", "");
  auto o = options();
  o.list_pods = [] { return core::Result<PodResourceList>(PodResourceList{{"trainer-0", "ml", "pytorch", "nvidia.com/gpu", {"GPU-aaa"}}}); };
  o.name_container = [](Runtime runtime, const std::string& id) {
    EXPECT_EQ(runtime, Runtime::Docker);
    return core::Result<std::string>("name-of-" + id.substr(0, 4));
  };
  Attributor attributor(o);
  attributor.refresh();
  std::vector<GpuProcess> processes = {{10, 0, "GPU-aaa"}, {11, 1, "GPU-bbb"}};
  auto first = attributor.attribute(processes);
  EXPECT_EQ(first[10].pod_uid, "aaaa-bb");
  EXPECT_EQ(first[10].pod_name, "trainer-0");
  EXPECT_EQ(first[10].pod_namespace, "ml");
  EXPECT_EQ(first[10].pod_container, "pytorch");
  EXPECT_EQ(first[10].container_pid, 1u);
  EXPECT_FALSE(first[11].container_name);  // asked for, not waited for
  attributor.refresh();                    // the background thread's work, done here
  auto second = attributor.attribute(processes);
  EXPECT_EQ(second[11].container_name, "name-of-3f4e");
  EXPECT_EQ(second[11].summary(), "docker name-of-3f4e");
}

TEST_F(AttributorTest, CacheFollowsTheStartTime) {
  process(20, "0::/system.slice/slurmstepd.scope/job_5/step_0/user/task_0\n", "", 100);
  auto o = options();
  o.forget_after = 0ms;
  Attributor attributor(o);
  EXPECT_EQ(attributor.attribute({{20, 0, ""}})[20].slurm_job_id, "5");
  // Same start time: the cached answer, even though the file changed.
  std::ofstream(root_ / "20" / "cgroup") << "0::/system.slice/slurmstepd.scope/job_6/step_0/user/task_0\n";
  EXPECT_EQ(attributor.attribute({{20, 0, ""}})[20].slurm_job_id, "5");
  // The PID was reused by a new process: read again.
  std::ofstream(root_ / "20" / "stat") << stat_line(20, 200);
  EXPECT_EQ(attributor.attribute({{20, 0, ""}})[20].slurm_job_id, "6");
  EXPECT_EQ(attributor.cached_pids(), 1u);
  std::this_thread::sleep_for(2ms);
  attributor.attribute({});
  EXPECT_EQ(attributor.cached_pids(), 0u);  // PIDs not asked about are forgotten
  fs::remove_all(root_ / "20");
  EXPECT_TRUE(attributor.attribute({{20, 0, ""}})[20].empty());  // gone
  EXPECT_EQ(attributor.cached_pids(), 0u);
}

TEST_F(AttributorTest, MappingFilesGiveTheJobOfAGpu) {
  fs::create_directories(root_ / "jobmap");
  std::ofstream(root_ / "jobmap" / "1") << "4821\n";
  std::ofstream(root_ / "jobmap" / "2") << "7\n8\n";
  process(30, "0::/user.slice/user-1000.slice/session-2.scope\n", "");
  process(31, "0::/user.slice/user-1000.slice/session-2.scope\n", "");
  auto o = options();
  o.job_mapping_dir = (root_ / "jobmap").string();
  Attributor attributor(o);
  attributor.refresh();
  auto out = attributor.attribute({{30, 1, ""}, {31, 2, ""}});
  EXPECT_EQ(out[30].slurm_job_id, "4821");
  EXPECT_FALSE(out[31].slurm_job_id);  // two jobs share GPU 2: no guess per process
  auto owners = attributor.owners(2, "GPU-x", {});
  EXPECT_EQ(owners.jobs, (std::vector<std::string>{"7", "8"}));
}

TEST_F(AttributorTest, SlowApiNeverBlocksAndFailuresAreLoggedOnce) {
  process(40, "0::/kubepods.slice/kubepods-podaaaa.slice/cri-containerd-" + kId + ".scope\n", "");
  std::atomic<int> calls{0};
  std::atomic<bool> fail{true};
  auto o = options();
  o.refresh_interval = 20ms;
  o.list_pods = [&]() -> core::Result<PodResourceList> {
    ++calls;
    std::this_thread::sleep_for(50ms);
    if (fail) return core::make_error("kubelet pod-resources socket /x does not exist");
    return PodResourceList{{"p", "ns", "c", "nvidia.com/gpu", {"GPU-aaa"}}};
  };
  std::mutex log_mutex;
  std::vector<std::string> logs;
  o.log = [&](const std::string& line) {
    std::lock_guard lock(log_mutex);
    logs.push_back(line);
  };
  Attributor attributor(o);
  attributor.start();
  auto deadline = std::chrono::steady_clock::now() + 3s;
  while (calls < 5 && std::chrono::steady_clock::now() < deadline) {
    auto start = std::chrono::steady_clock::now();
    auto out = attributor.attribute({{40, 0, "GPU-aaa"}});
    EXPECT_LT(std::chrono::steady_clock::now() - start, 40ms);  // never waits for the 50 ms call
    EXPECT_FALSE(out[40].pod_name);
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_GE(calls.load(), 5);
  {
    std::lock_guard lock(log_mutex);
    EXPECT_EQ(logs.size(), 1u);  // five failures, one line
  }
  fail = false;
  deadline = std::chrono::steady_clock::now() + 3s;
  std::optional<std::string> pod;
  while (!pod && std::chrono::steady_clock::now() < deadline) {
    pod = attributor.attribute({{40, 0, "GPU-aaa"}})[40].pod_name;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(pod, "p");
  // Failing again: the last good list stays.
  fail = true;
  int seen = calls;
  while (calls < seen + 2 && std::chrono::steady_clock::now() < deadline + 3s) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(attributor.attribute({{40, 0, "GPU-aaa"}})[40].pod_name, "p");
  std::lock_guard lock(log_mutex);
  EXPECT_EQ(logs.size(), 3u);  // failing, answering again, failing
}

TEST_F(AttributorTest, GoneProcessIsEmpty) {
  Attributor attributor(options());
  auto out = attributor.attribute({{99999, 0, ""}});
  EXPECT_TRUE(out[99999].empty());
}

}  // namespace attributor_test
}  // namespace gpuwatch::attribution
