#include "capi/job_gpus.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::capi {
namespace job_gpus_test {  // this test file's helpers (unity builds: no clash with another file's)

// Four GPUs; GPU 1 has a MIG device; processes by pid per GPU.
core::Snapshot node(const std::vector<std::vector<std::uint32_t>>& pids_per_gpu) {
  core::Snapshot s;
  for (unsigned i = 0; i < pids_per_gpu.size(); ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(core::FieldId::Uuid) = core::FieldReading::of(fmt::format("GPU-{}{}{}-aaaa", i, i, i));
    if (i == 1) {
      core::MigDeviceSample mig;
      mig.uuid = "MIG-1234-5678";
      d.mig_devices.push_back(mig);
    }
    for (auto pid : pids_per_gpu[i]) {
      core::ProcessSample process;
      process.pid = pid;
      d.processes.push_back(process);
    }
    s.devices.push_back(d);
  }
  return s;
}

TEST(JobGpus, GpusRunningAProcessOfTheTreeWinOverEverythingElse) {
  const auto s = node({{100}, {200, 300}, {}, {300}});
  EXPECT_EQ(job_gpus(s, {300, 301}, std::string("0")), (std::vector<unsigned>{1, 3}));
}

TEST(JobGpus, WithoutOwnProcessCudaVisibleDevicesThenAll) {
  const auto s = node({{100}, {}, {}, {}});
  EXPECT_EQ(job_gpus(s, {999}, std::string("3,1")), (std::vector<unsigned>{3, 1}));
  EXPECT_EQ(job_gpus(s, {999}, std::nullopt), (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(job_gpus(s, {999}, std::string("")), (std::vector<unsigned>{}));  // CUDA sees no GPU
}

TEST(JobGpus, CudaVisibleDevicesTakesIndicesUuidPrefixesAndMigUuids) {
  const auto s = node({{}, {}, {}, {}});
  EXPECT_EQ(cuda_visible_gpus("GPU-222, 0", s), (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(cuda_visible_gpus("MIG-1234-5678", s), (std::vector<unsigned>{1}));
  EXPECT_EQ(cuda_visible_gpus("2,2", s), (std::vector<unsigned>{2}));
  // As in CUDA, the list ends at the first entry naming no GPU (unknown, ambiguous, out of range).
  EXPECT_EQ(cuda_visible_gpus("1,7,2", s), (std::vector<unsigned>{1}));
  EXPECT_EQ(cuda_visible_gpus("3,GPU-,0", s), (std::vector<unsigned>{3}));  // "GPU-" matches all four
  EXPECT_EQ(cuda_visible_gpus("-1,0", s), (std::vector<unsigned>{}));
}

TEST(JobGpus, ParentOfStatCountsFieldsAfterTheLastParenthesis) {
  EXPECT_EQ(parent_of_stat("1234 (python) S 77 1234 1234 0 -1"), 77u);
  EXPECT_EQ(parent_of_stat("1234 (a) b) (c) R 5 1 1"), 5u);
  EXPECT_EQ(parent_of_stat("garbage"), std::nullopt);
}

TEST(JobGpus, ProcessTreeFollowsParentIdsUnderAProcRoot) {
  const auto root = std::filesystem::temp_directory_path() / fmt::format("gw_capi_proc_{}", ::testing::UnitTest::GetInstance()->random_seed());
  std::filesystem::remove_all(root);
  auto add = [&](unsigned pid, unsigned ppid) {
    std::filesystem::create_directories(root / std::to_string(pid));
    std::ofstream(root / std::to_string(pid) / "stat") << pid << " (p w) S " << ppid << " 1 1 0";
  };
  add(10, 1);  // the root
  add(11, 10);
  add(12, 11);  // a grandchild (a DataLoader worker of a torchrun rank)
  add(20, 1);   // someone else
  std::filesystem::create_directories(root / "self");
  EXPECT_EQ(process_tree(10, root.string()), (std::set<std::uint32_t>{10, 11, 12}));
  EXPECT_EQ(process_tree(20, root.string()), (std::set<std::uint32_t>{20}));
  std::filesystem::remove_all(root);
}

}  // namespace job_gpus_test
}  // namespace gpuwatch::capi
