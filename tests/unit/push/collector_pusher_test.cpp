// What a push tick takes from the live view: nothing before every GPU's first sample, then each
// GPU's series with its uuid, and the time each GPU's sample was taken.
#include "push/collector_pusher.hpp"

#include <gtest/gtest.h>

#include <string>

namespace collector_pusher_test {

using gpuwatch::core::FieldId;
using gpuwatch::core::FieldReading;

gpuwatch::core::Snapshot sampled_gpus(unsigned count) {
  gpuwatch::core::Snapshot snap;
  snap.device_count = count;
  for (unsigned i = 0; i < count; ++i) {
    gpuwatch::core::DeviceSnapshot d;
    d.index = i;
    d.get(FieldId::Uuid) = FieldReading::of("GPU-CAFE000" + std::to_string(i));
    snap.devices.push_back(d);
  }
  return snap;
}

TEST(PushCollectorPusher, NotReadyBeforeEveryGpuHasASample) {
  gpuwatch::core::Snapshot empty;  // before the first sample: no device yet
  gpuwatch::live::LiveView view;
  view.snapshot = &empty;
  view.status = {gpuwatch::live::DeviceStatus{}, gpuwatch::live::DeviceStatus{}};
  const auto now = std::chrono::system_clock::now();
  EXPECT_FALSE(gpuwatch::push::collect_from_view(view, {}, now).ready);
  gpuwatch::core::Snapshot one = sampled_gpus(2);
  view.snapshot = &one;
  view.status = {gpuwatch::live::DeviceStatus{true, true, 0.2, 0.01}, gpuwatch::live::DeviceStatus{}};
  EXPECT_FALSE(gpuwatch::push::collect_from_view(view, {}, now).ready);
}

TEST(PushCollectorPusher, FirstBatchHasEveryGpuWithItsUuidAndSampleTime) {
  gpuwatch::core::Snapshot snap = sampled_gpus(2);
  gpuwatch::live::LiveView view;
  view.snapshot = &snap;
  view.status = {gpuwatch::live::DeviceStatus{true, true, 0.25, 0.01}, gpuwatch::live::DeviceStatus{true, true, 0.75, 0.01}};
  const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'000));
  const auto collected = gpuwatch::push::collect_from_view(view, {}, now);
  EXPECT_TRUE(collected.ready);
  EXPECT_NE(collected.text.find("gpuwatch_up{gpu=\"0\",uuid=\"GPU-CAFE0000\",vendor=\"nvidia\"} 1\n"), std::string::npos) << collected.text;
  EXPECT_NE(collected.text.find("gpuwatch_up{gpu=\"1\",uuid=\"GPU-CAFE0001\",vendor=\"nvidia\"} 1\n"), std::string::npos) << collected.text;
  ASSERT_EQ(collected.gpus.size(), 2u);
  EXPECT_EQ(collected.gpus[0].gpu, "0");
  EXPECT_EQ(collected.gpus[0].taken_ms, 1'700'000'000'000 - 250);
  EXPECT_EQ(collected.gpus[1].taken_ms, 1'700'000'000'000 - 750);
  // Every pushed gpuwatch_up series carries its uuid, stamped with its GPU's sample time.
  auto series = gpuwatch::push::series_from_exposition(collected.text, 1'700'000'000'000, {});
  std::map<std::string, std::int64_t> last;
  gpuwatch::push::stamp_gpu_series(series, collected.gpus, 1'700'000'000'000, last);
  int up_series = 0;
  for (const auto& s : series) {
    if (s.labels[0].value != "gpuwatch_up") continue;
    ++up_series;
    bool has_uuid = false;
    for (const auto& l : s.labels) has_uuid = has_uuid || (l.name == "uuid" && l.value.starts_with("GPU-CAFE"));
    EXPECT_TRUE(has_uuid);
    EXPECT_LT(s.samples[0].timestamp_ms, 1'700'000'000'000);
  }
  EXPECT_EQ(up_series, 2);
  // The next push waits for the later of the GPUs' next samples: GPU 0's, taken 250 ms ago and
  // 10 ms long, finishes in 1000 - 250 + 10 = 760 ms.
  EXPECT_EQ(gpuwatch::push::collect_from_view(view, {}, now, std::chrono::milliseconds(1000)).next_samples_in.count(), 760);
  EXPECT_EQ(collected.next_samples_in.count(), 0);  // no interval given: unknown
}

}  // namespace collector_pusher_test
