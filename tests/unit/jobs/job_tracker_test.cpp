#include "jobs/job_tracker.hpp"

#include <gtest/gtest.h>

#include <map>

namespace gpuwatch::jobs {
namespace job_tracker_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::DeviceSnapshot gpu(unsigned index, std::vector<std::uint32_t> pids) {
  core::DeviceSnapshot d;
  d.index = index;
  d.get(FieldId::Uuid) = FieldReading::of("GPU-" + std::to_string(index));
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.9);
  for (auto pid : pids) {
    core::ProcessSample p;
    p.pid = pid;
    d.processes.push_back(p);
  }
  return d;
}

ProcessTree tree_of_100() {
  // 100: the command; 101: a worker it forked; 500: someone else's job.
  static const std::map<std::uint32_t, std::uint32_t> parents = {{100, 1}, {101, 100}, {500, 1}};
  return ProcessTree({100}, [](std::uint32_t pid) -> std::optional<std::uint32_t> {
    auto it = parents.find(pid);
    return it == parents.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  });
}

TEST(JobTracker, AGpuIsTheJobsWhenAProcessOfItsTreeRunsThere) {
  JobTracker tracker(tree_of_100(), parse_visible_devices(std::nullopt));
  const auto t = TimePoint(std::chrono::seconds(1));
  tracker.observe(gpu(0, {500}), t);
  tracker.observe(gpu(1, {101}), t);  // the forked worker
  tracker.observe(gpu(2, {}), t);
  auto stats = tracker.stats();
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_FALSE(stats[0].used);
  EXPECT_TRUE(stats[1].used);
  EXPECT_EQ(stats[1].pids, std::set<std::uint32_t>{101});
  EXPECT_FALSE(stats[2].used);
}

TEST(JobTracker, CudaVisibleDevicesNarrowsTheJobsGpus) {
  JobTracker tracker(tree_of_100(), parse_visible_devices("GPU-2,3"));
  const auto t = TimePoint(std::chrono::seconds(1));
  for (unsigned i = 0; i < 4; ++i) tracker.observe(gpu(i, {100}), t);
  auto stats = tracker.stats();
  EXPECT_FALSE(stats[0].used);
  EXPECT_FALSE(stats[1].used);
  EXPECT_TRUE(stats[2].used);
  EXPECT_TRUE(stats[3].used);
}

TEST(JobTracker, MigUuidSelectsTheInstanceTheProcessRunsIn) {
  core::DeviceSnapshot d = gpu(0, {});
  for (std::uint32_t gi : {1u, 2u}) {
    core::MigDeviceSample m;
    m.uuid = "MIG-gi" + std::to_string(gi);
    m.gpu_instance_id = gi;
    d.mig_devices.push_back(m);
    core::ProcessSample p;
    p.pid = gi == 1 ? 100 : 101;
    p.gpu_instance_id = gi;
    p.compute_instance_id = 0;
    d.processes.push_back(p);
  }
  ProcessTree tree = tree_of_100();
  auto job = job_processes(d, tree, parse_visible_devices("MIG-gi2"));
  EXPECT_EQ(job.pids, std::set<std::uint32_t>{101});
  EXPECT_EQ(job.gpu_instances, std::set<std::uint32_t>{2});
}

}  // namespace job_tracker_test
}  // namespace gpuwatch::jobs
