// The collector feeds each GPU's power readings to its EnergyIntegrator (issue 29): on the fake
// NVML, which has no energy counter, /metrics gets the estimate with source="estimated".
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "exporter/prometheus_encoder.hpp"
#include "live/collector.hpp"
#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::live {
namespace energy_collector_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using testing::eventually;

std::optional<double> estimate_of(const Collector& collector) {
  std::optional<double> joules;
  collector.with_view([&](const LiveView& view) {
    if (!view.status.empty()) joules = view.status[0].estimated_energy_joules;
  });
  return joules;
}

TEST(EnergyCollector, IntegratesPowerWhereThereIsNoCounter) {
  testing::FakeNvml fake;
  fake.devices.resize(1);  // 123.45 W, no nvmlDeviceGetTotalEnergyConsumption
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  const auto started = std::chrono::steady_clock::now();
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return estimate_of(collector).value_or(0) > 2.0; }));  // > 16 ms of 123.45 W
  std::string text;
  std::optional<double> joules;
  collector.with_view([&](const LiveView& view) {
    text = exporter::encode_prometheus(view, {});
    joules = view.status[0].estimated_energy_joules;
  });
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(collector.stop(2s));
  ASSERT_TRUE(joules);
  EXPECT_LE(*joules, 123.45 * elapsed + 1e-6);  // never more than the power over the time it ran
  EXPECT_NE(text.find("gpuwatch_energy_joules_total{gpu=\"0\",uuid=\"GPU-11111111-2222-3333-4444-555555555555\",vendor=\"nvidia\","
                      "source=\"estimated\"} "),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(",source=\"counter\"}"), std::string::npos);  // (HELP names both sources)
}

TEST(EnergyCollector, NoPowerNoCounterNoSeries) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].power_rc = NVML_ERROR_NOT_SUPPORTED;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  CollectorOptions options;
  options.interval = 20ms;
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return collector.ready(); }));
  std::this_thread::sleep_for(100ms);  // several samples
  std::string text;
  collector.with_view([&](const LiveView& view) { text = exporter::encode_prometheus(view, {}); });
  ASSERT_TRUE(collector.stop(2s));
  EXPECT_FALSE(estimate_of(collector));
  EXPECT_NE(text.find("gpuwatch_up{"), std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_energy_joules_total"), std::string::npos) << text;
}

}  // namespace energy_collector_test
}  // namespace gpuwatch::live
