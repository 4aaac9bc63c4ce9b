#include "status/json.hpp"

#include <gtest/gtest.h>

#include "unit/status/status_fixture.hpp"

namespace gpuwatch::status {
namespace {

TEST(StatusJson, UsesFieldTableKeysAndBaseUnits) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  ASSERT_EQ(j["gpus"].size(), 3u);
  const auto& gpu = j["gpus"][0];
  EXPECT_EQ(gpu["index"], 0);
  EXPECT_EQ(gpu["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu["memory_total_bytes"], 81559ull * 1024 * 1024);
  EXPECT_EQ(gpu["temperature_gpu_c"], 63);
  EXPECT_DOUBLE_EQ(gpu["utilization_gpu_ratio"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(gpu["power_draw_w"].get<double>(), 631.95);
  EXPECT_EQ(j["driver_version"], "590.48.01");
  EXPECT_EQ(j["hostname"], "node-7");
  EXPECT_DOUBLE_EQ(j["timestamp_s"].get<double>(), 1764426391.0);
}

TEST(StatusJson, AbsentIsNullNeverZero) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  EXPECT_TRUE(j["gpus"][0]["fan_speed_ratio"].is_null());
  EXPECT_TRUE(j["gpus"][1]["utilization_gpu_ratio"].is_null());
  EXPECT_TRUE(j["gpus"][1]["power_draw_w"].is_null());
  EXPECT_EQ(j["gpus"][1]["memory_used_bytes"], 0);  // a real zero stays zero
  EXPECT_TRUE(j["simulated_scenario"].is_null());
}

TEST(StatusJson, LostGpuCarriesItsErrorAndNullValues) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  const auto& lost = j["gpus"][2];
  EXPECT_EQ(lost["state"], "lost");
  EXPECT_EQ(lost["error"], "GPU is lost");
  EXPECT_TRUE(lost["temperature_gpu_c"].is_null());
  EXPECT_TRUE(lost["processes"].is_null());
  EXPECT_TRUE(j["gpus"][0]["error"].is_null());
}

TEST(StatusJson, ProcessesCarryUserCommandAndMemory) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  const auto& p = j["gpus"][0]["processes"][0];
  EXPECT_EQ(p["pid"], 4242);
  EXPECT_EQ(p["user"], "alice");
  EXPECT_EQ(p["command"], "gpu_burn");
  EXPECT_EQ(p["command_line"], "/opt/gpu_burn -d 60");
  EXPECT_EQ(p["used_memory_bytes"], 40000ull * 1024 * 1024);
  EXPECT_EQ(p["type"], "C");
  EXPECT_TRUE(j["gpus"][1]["processes"].is_array());
  EXPECT_TRUE(j["gpus"][1]["processes"].empty());
}

TEST(StatusJson, EveryStatusFieldHasAKeyWithAUnitSuffixOrIsAnIdentity) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  for (const auto& [key, value] : j["gpus"][0].items()) {
    EXPECT_EQ(key.find('.'), std::string::npos) << key;
    EXPECT_FALSE(value.is_string() && value.get<std::string>().find(" MiB") != std::string::npos) << key;
  }
}

// Issue 9: additions only, in base units, null when absent.
TEST(StatusJson, issue_9_clock_throttle_pcie_and_per_process_values) {
  auto snapshot = testing::status_snapshot();
  snapshot.devices[0].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0x61});
  auto j = status_json(snapshot, testing::status_context());
  const auto& gpu = j["gpus"][0];
  EXPECT_DOUBLE_EQ(gpu["clocks_current_sm_hz"].get<double>(), 1755e6);
  EXPECT_DOUBLE_EQ(gpu["clocks_max_sm_hz"].get<double>(), 1980e6);
  EXPECT_EQ(gpu["temperature_gpu_slowdown_c"], 87);
  EXPECT_DOUBLE_EQ(gpu["pcie_rx_throughput_bytes_per_s"].get<double>(), 12.5 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(gpu["pcie_tx_throughput_bytes_per_s"].get<double>(), 3.0 * 1024 * 1024);
  EXPECT_EQ(gpu["throttle_reasons"], nlohmann::ordered_json::parse(R"(["gpu_idle","sw_thermal_slowdown","hw_thermal_slowdown"])"));
  EXPECT_TRUE(gpu["fan_speed_ratio"].is_null());
  const auto& p = gpu["processes"][0];
  EXPECT_DOUBLE_EQ(p["utilization_gpu_ratio"].get<double>(), 0.97);
  EXPECT_DOUBLE_EQ(p["host_cpu_ratio"].get<double>(), 1.02);
  EXPECT_EQ(p["host_memory_rss_bytes"], 2048ull * 1024 * 1024);

  const auto& mig = j["gpus"][1];
  EXPECT_TRUE(mig["throttle_reasons"].is_null());  // not reported: null, not []
  EXPECT_TRUE(mig["clocks_max_sm_hz"].is_null());
  EXPECT_TRUE(mig["pcie_rx_throughput_bytes_per_s"].is_null());

  snapshot.devices[0].get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(std::uint64_t{0});
  auto context = testing::status_context();
  context.processes.clear();
  snapshot.devices[0].processes[0].sm_ratio.reset();
  j = status_json(snapshot, context);
  EXPECT_TRUE(j["gpus"][0]["throttle_reasons"].is_array() && j["gpus"][0]["throttle_reasons"].empty());
  EXPECT_TRUE(j["gpus"][0]["processes"][0]["utilization_gpu_ratio"].is_null());
  EXPECT_TRUE(j["gpus"][0]["processes"][0]["host_cpu_ratio"].is_null());
  EXPECT_TRUE(j["gpus"][0]["processes"][0]["host_memory_rss_bytes"].is_null());
}

}  // namespace
}  // namespace gpuwatch::status
