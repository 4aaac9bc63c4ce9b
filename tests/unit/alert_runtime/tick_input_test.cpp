// The one alert input builder: from what a live diagnosis tick read (ages, staleness, Xids) and
// from a whole tick just sampled (record: every GPU fresh).
#include "alert_runtime/tick_input.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alert_runtime {
namespace tick_input_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Snapshot two_gpus() {
  core::Snapshot snapshot;
  snapshot.device_count = 3;  // NVML's count: one GPU has no sample yet
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  for (unsigned i : {0u, 2u}) {
    core::DeviceSnapshot device;
    device.index = i;
    snapshot.devices.push_back(device);
  }
  snapshot.devices[1].processes.push_back({});
  snapshot.devices[1].processes.back().name = "python";
  return snapshot;
}

TEST(TickInput, FromALiveTickEachGpuHasItsAgeStalenessAndXids) {
  const auto snapshot = two_gpus();
  const std::vector<GpuFreshness> fresh = {{0, true, 0.4, false}, {1, false, 0, false}, {2, true, 9.0, true}};
  const std::vector<GpuXid> xids = {{2, 79, 1'700'000'005.0}, {0, 13, 1'700'000'001.0}};
  const auto now = snapshot.timestamp + std::chrono::seconds(10);
  auto tick = make_tick_input(snapshot, fresh, xids, {}, now, "node1");
  EXPECT_EQ(tick.now, now);
  EXPECT_EQ(tick.host, "node1");
  EXPECT_EQ(tick.gpu_count, 3u);
  ASSERT_EQ(tick.gpus.size(), 3u) << "every GPU sampled, those with no sample yet too";
  EXPECT_EQ(tick.gpus[0].sample, &snapshot.devices[0]);
  EXPECT_DOUBLE_EQ(*tick.gpus[0].age_s, 0.4);
  EXPECT_EQ(tick.gpus[1].sample, nullptr);
  EXPECT_FALSE(tick.gpus[1].age_s);
  EXPECT_TRUE(tick.gpus[2].stale);
  ASSERT_EQ(tick.gpus[2].xids.size(), 1u);
  EXPECT_EQ(tick.gpus[2].xids[0].xid, 79u);
  ASSERT_EQ(tick.gpus[2].process_commands.size(), 1u);
  EXPECT_EQ(tick.gpus[2].process_commands[0], "python");
  EXPECT_DOUBLE_EQ(*tick.sampler_age_s, 0.4) << "the freshest sample's age";
}

TEST(TickInput, AWholeTickIsFreshAtItsOwnTime) {
  const auto snapshot = two_gpus();
  auto tick = make_tick_input(snapshot, {}, "node1");
  EXPECT_EQ(tick.now, snapshot.timestamp);
  ASSERT_EQ(tick.gpus.size(), 2u) << "the devices of the tick";
  for (const auto& gpu : tick.gpus) {
    EXPECT_DOUBLE_EQ(*gpu.age_s, 0.0);
    EXPECT_FALSE(gpu.stale);
    EXPECT_TRUE(gpu.xids.empty());
  }
  EXPECT_EQ(tick.gpus[1].index, 2u);
  EXPECT_DOUBLE_EQ(*tick.sampler_age_s, 0.0);
  EXPECT_DOUBLE_EQ(*make_tick_input(core::Snapshot{}, {}, "n").sampler_age_s, 0.0) << "also with no device";
}

}  // namespace tick_input_test
}  // namespace gpuwatch::alert_runtime
