#include "live/collector.hpp"
#include "exporter/metric_list.hpp"
#include "exporter/prometheus_encoder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/field_table.hpp"
#include "exporter/metric_list.hpp"
#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::live {
namespace collector_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::eventually;

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

// While set, the fake's temperature call blocks (a hung NVML call), at most 10 s.
std::atomic<bool> g_hang{false};

nvml::NvmlFunctions hanging_functions(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t, int, unsigned* c) {
    auto give_up = Steady::now() + 10s;
    while (g_hang && Steady::now() < give_up) std::this_thread::sleep_for(1ms);
    *c = 42;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}


struct Seen {
  bool up = false;
  double age = 0;
  std::string text;
};

Seen look(const Collector& collector) {
  Seen seen;
  collector.with_view([&](const LiveView& view) {
    seen.up = !view.status.empty() && view.status[0].up;
    seen.age = view.status.empty() ? 0 : view.status[0].sample_age_seconds;
    seen.text = exporter::encode_prometheus(view, {});
  });
  return seen;
}

TEST(Collector, SamplesInTheBackgroundAndReportsTheValues) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(hanging_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  Collector collector(api, options);
  EXPECT_EQ(collector.stale_after(), 3 * 20ms + 2s);
  collector.start();
  EXPECT_EQ(collector.gpu_count(), 1u);
  ASSERT_TRUE(eventually([&] { return collector.ready(); }));
  Seen seen = look(collector);
  EXPECT_TRUE(seen.up);
  EXPECT_NE(seen.text.find("gpuwatch_temperature_gpu_celsius{gpu=\"0\",uuid=\"GPU-11111111-2222-3333-4444-555555555555\",vendor=\"nvidia\"} 42\n"),
            std::string::npos)
      << seen.text;
  EXPECT_NE(seen.text.find("gpuwatch_memory_used_bytes{gpu=\"0\""), std::string::npos);
  EXPECT_EQ(seen.text.find("gpuwatch_fan_speed_ratio"), std::string::npos);  // fake: not supported
  EXPECT_TRUE(collector.stop(2s));
}

TEST(Collector, AHungCallMarksTheGpuStaleWithoutBlockingReaders) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(hanging_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  options.stale_after = 150ms;
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return collector.ready() && look(collector).up; }));

  g_hang = true;
  ASSERT_TRUE(eventually([&] { return !look(collector).up; }, 3000ms));
  auto started = Steady::now();
  Seen stale = look(collector);
  EXPECT_LT(Steady::now() - started, 50ms);  // readers never wait for NVML
  EXPECT_FALSE(stale.up);
  EXPECT_GT(stale.age, 0.15);
  EXPECT_NE(stale.text.find("gpuwatch_up{gpu=\"0\",uuid=\"GPU-11111111-2222-3333-4444-555555555555\",vendor=\"nvidia\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(stale.text.find("gpuwatch_memory_used_bytes{"), std::string::npos);  // stale values dropped
  EXPECT_NE(stale.text.find("gpuwatch_gpu_info{gpu=\"0\""), std::string::npos);
  // Stopping while the call hangs: the thread cannot be joined yet.
  EXPECT_FALSE(collector.stop(50ms));

  g_hang = false;  // the driver answers again: the thread finishes its sample and exits
  EXPECT_TRUE(collector.stop(2s));
}

TEST(Collector, RecoversWhenTheCallReturns) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(hanging_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  options.stale_after = 150ms;
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return look(collector).up; }));
  g_hang = true;
  ASSERT_TRUE(eventually([&] { return !look(collector).up; }, 3000ms));
  g_hang = false;
  EXPECT_TRUE(eventually([&] { return look(collector).up; }, 3000ms));
  EXPECT_LT(look(collector).age, 0.15);
  EXPECT_TRUE(collector.stop(2s));
}

TEST(Collector, ALostGpuKeepsItsIdentityAndCountsErrors) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(hanging_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return look(collector).up; }));
  ASSERT_TRUE(collector.stop(2s));  // the fake is not thread-safe: change it while nothing samples
  fake.devices[0].handle_rc = NVML_ERROR_GPU_IS_LOST;
  Collector again(api, options);
  again.start();
  ASSERT_TRUE(eventually([&] { return again.ready(); }));
  Seen seen = look(again);
  EXPECT_FALSE(seen.up);
  EXPECT_NE(seen.text.find("gpuwatch_gpu_lost{gpu=\"0\",uuid=\"\",vendor=\"nvidia\"} 1\n"), std::string::npos) << seen.text;
  EXPECT_NE(seen.text.find("gpuwatch_nvml_errors_total{field=\"device\",code=\"15\"}"), std::string::npos);
  EXPECT_TRUE(again.stop(2s));
}

TEST(Collector, HandsEveryFinishedSampleToTheHookWithTheExtraFields) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(hanging_functions(fake));
  // A field the exporter does not read by itself.
  const std::vector<core::FieldId> exported = exporter::collected_fields(false);
  std::optional<core::FieldId> extra;
  for (const auto& info : core::field_table()) {
    if (info.source != core::Source::System && std::find(exported.begin(), exported.end(), info.id) == exported.end()) {
      extra = info.id;
      break;
    }
  }
  ASSERT_TRUE(extra);
  std::mutex mutex;
  std::map<unsigned, int> samples;
  bool extra_read = true;
  CollectorOptions options;
  options.interval = 20ms;
  options.extra_fields = {*extra};
  options.on_sample = [&](const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) {
    std::lock_guard lock(mutex);
    ++samples[device.index];
    extra_read = extra_read && device.get(*extra).status != core::FieldStatus::NotRead;
    EXPECT_LE(started, std::chrono::system_clock::now());
  };
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return samples[0] >= 3 && samples[1] >= 3;
  }));
  EXPECT_TRUE(collector.stop(2s));
  std::lock_guard lock(mutex);
  EXPECT_TRUE(extra_read) << core::field_info(*extra).name;
  EXPECT_EQ(samples.size(), 2u);
}

}  // namespace collector_test
}  // namespace gpuwatch::live

namespace gpuwatch::live {
namespace collector_test {  // this test file's helpers (unity builds: no clash with another file's)

// fields: a reader that shows a few fields (top) samples only those (and extra_fields).
TEST(Collector, OnlyFieldsSamplesJustThose) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  options.fields = {core::FieldId::PowerDraw};
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return collector.ready(); }));
  bool power = false, temperature = false;
  collector.with_view([&](const LiveView& view) {
    power = view.snapshot->devices[0].get(core::FieldId::PowerDraw).ok();
    temperature = view.snapshot->devices[0].get(core::FieldId::TemperatureGpu).ok();
  });
  ASSERT_TRUE(collector.stop(2s));
  EXPECT_TRUE(power);
  EXPECT_FALSE(temperature);
  EXPECT_GT(fake.calls["nvmlDeviceGetPowerUsage"], 0);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 0);
}

}  // namespace collector_test
}  // namespace gpuwatch::live
