#include "exporter/nvidia_smi_compat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "core/field_table.hpp"
#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {
namespace nvidia_smi_compat_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

// An H100 under load, with the readings of realdata/nvidia_gpu_exporter/expected-metrics/
// *h100-80gb-hbm3*load.metrics expressed in gpuwatch's base units.
core::Snapshot h100_under_load() {
  core::Snapshot snap;
  snap.driver_version = "590.48.01";
  snap.cuda_driver_version = 13010;
  snap.device_count = 1;
  core::DeviceSnapshot d;
  d.index = 0;
  d.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-6F0A1B2C-0000-1111-2222-333344445555"));
  d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
  d.get(FieldId::PciBusId) = FieldReading::of(std::string("00000000:00:09.0"));
  d.get(FieldId::VbiosVersion) = FieldReading::of(std::string("96.00.A5.00.01"));
  d.get(FieldId::ComputeCap) = FieldReading::of(std::string("9.0"));
  d.get(FieldId::PciSubDeviceId) = FieldReading::of(std::uint64_t{0x16C110DE});
  d.get(FieldId::Index) = FieldReading::of(std::int64_t{0});
  d.get(FieldId::Pstate) = FieldReading::of(std::int64_t{0});
  d.get(FieldId::UtilizationGpu) = FieldReading::of(1.0);
  d.get(FieldId::UtilizationMemory) = FieldReading::of(0.11);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{19818} * 1048576);
  d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{81559} * 1048576);
  d.get(FieldId::ClocksCurrentGraphics) = FieldReading::of(std::uint64_t{1980000000});
  d.get(FieldId::ClocksMaxMemory) = FieldReading::of(std::uint64_t{2619000000});
  d.get(FieldId::PowerDraw) = FieldReading::of(631.95);
  d.get(FieldId::EnforcedPowerLimit) = FieldReading::of(700.0);
  d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{59});
  d.get(FieldId::ClocksEventReasonsSwPowerCap) = FieldReading::of(false);
  d.get(FieldId::ClocksEventReasonsSupported) = FieldReading::of(std::uint64_t{511});
  d.get(FieldId::EccModeCurrent) = FieldReading::of(true);
  d.get(FieldId::EnergyTotal) = FieldReading::of(35757.5);
  d.get(FieldId::PcieTxThroughput) = FieldReading::of(4096000.0);
  d.get(FieldId::FanSpeed) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});  // an H100 has no fan
  d.processes_status = core::FieldStatus::Ok;
  core::ProcessSample burn;
  burn.pid = 11345;
  burn.name = "./gpu_burn";
  burn.used_memory_bytes = std::uint64_t{15690} * 1048576;
  core::ProcessSample desktop;
  desktop.pid = 900;
  desktop.name = "Xorg";
  desktop.type = core::ProcessType::Graphics;
  desktop.used_memory_bytes = std::uint64_t{4} * 1048576;
  d.processes = {burn, desktop};
  snap.devices.push_back(d);
  return snap;
}

live::LiveView view_of(const core::Snapshot& snap) { return live::LiveView{&snap, {live::DeviceStatus{true, true, 0.1, 0.01}}, {}, {}, true}; }

std::string encode_compat(const core::Snapshot& snap) {
  EncodeOptions options;
  options.compat_nvidia_smi = true;
  return encode_prometheus(view_of(snap), options);
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(NvidiaSmiCompat, NamingRuleOverTheFieldTable) {
  auto name = [](FieldId id) { return nvidia_smi_metric_name(core::field_info(id)); };
  EXPECT_EQ(name(FieldId::MemoryUsed), "nvidia_smi_memory_used_bytes");
  EXPECT_EQ(name(FieldId::UtilizationGpu), "nvidia_smi_utilization_gpu_ratio");
  EXPECT_EQ(name(FieldId::ClocksCurrentSm), "nvidia_smi_clocks_current_sm_clock_hz");
  EXPECT_EQ(name(FieldId::TemperatureGpu), "nvidia_smi_temperature_gpu");
  EXPECT_EQ(name(FieldId::EnforcedPowerLimit), "nvidia_smi_enforced_power_limit_watts");
  EXPECT_EQ(name(FieldId::PowerDefaultLimit), "nvidia_smi_power_default_limit_watts");
  EXPECT_EQ(name(FieldId::ClocksEventReasonsGpuIdle), "nvidia_smi_clocks_event_reasons_gpu_idle");
  EXPECT_EQ(name(FieldId::ClocksEventReasonsCountersSwPowerCap),
            "nvidia_smi_clocks_event_reasons_counters_sw_power_cap_seconds");
  EXPECT_EQ(name(FieldId::EccErrorsUncorrectedAggregateTotal), "nvidia_smi_ecc_errors_uncorrected_aggregate_total");
  EXPECT_EQ(name(FieldId::Pstate), "nvidia_smi_pstate");
  EXPECT_EQ(nvidia_smi_uuid("GPU-6F0A1B2C-0000"), "6f0a1b2c-0000");
  EXPECT_EQ(nvidia_smi_uuid("6f0a"), "6f0a");
}

TEST(NvidiaSmiCompat, ValuesInThatExportersUnits) {
  std::string text = encode_compat(h100_under_load());
  const std::string u = "{uuid=\"6f0a1b2c-0000-1111-2222-333344445555\"}";
  EXPECT_TRUE(has_line(text, "nvidia_smi_utilization_gpu_ratio" + u + " 1")) << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_utilization_memory_ratio" + u + " 0.11"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_memory_used_bytes" + u + " 20780679168"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_memory_total_bytes" + u + " 85520809984"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_clocks_current_graphics_clock_hz" + u + " 1980000000"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_clocks_max_memory_clock_hz" + u + " 2619000000"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_power_draw_watts" + u + " 631.95"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_enforced_power_limit_watts" + u + " 700"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_temperature_gpu" + u + " 59"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_pstate" + u + " 0"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_index" + u + " 0"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_clocks_event_reasons_sw_power_cap" + u + " 0"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_clocks_event_reasons_supported" + u + " 511"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_ecc_mode_current" + u + " 1"));
  EXPECT_TRUE(has_line(text, "# TYPE nvidia_smi_energy_joules_total counter\nnvidia_smi_energy_joules_total" + u +
                                 " 35757.5"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_pcie_throughput_tx_bytes_per_second" + u + " 4096000"));
  // Absent is absent: no fan on an H100, no series (never 0); no reading, no series.
  EXPECT_EQ(text.find("nvidia_smi_fan_speed_ratio"), std::string::npos);
  EXPECT_EQ(text.find("nvidia_smi_temperature_memory"), std::string::npos);
  EXPECT_TRUE(has_line(text, "nvidia_smi_last_collect_success 1"));
}

TEST(NvidiaSmiCompat, GpuInfoAndComputeApps) {
  std::string text = encode_compat(h100_under_load());
  const std::string uuid = "uuid=\"6f0a1b2c-0000-1111-2222-333344445555\"";
  EXPECT_TRUE(has_line(text, "nvidia_smi_gpu_info{" + uuid +
                                 ",index=\"0\",name=\"NVIDIA H100 80GB HBM3\",vbios_version=\"96.00.A5.00.01\","
                                 "pci_bus_id=\"00000000:00:09.0\",compute_cap=\"9.0\",driver_version=\"590.48.01\","
                                 "cuda_version=\"13.1\",pci_sub_device_id=\"0x16C110DE\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_compute_apps{" + uuid + "} 1"));  // Xorg is graphics only
  EXPECT_TRUE(has_line(text, "nvidia_smi_compute_app_info{pid=\"11345\",process_name=\"./gpu_burn\"," + uuid + "} 1"));
  EXPECT_TRUE(has_line(text, "nvidia_smi_compute_app_used_memory_bytes{pid=\"11345\",process_name=\"./gpu_burn\"," +
                                 uuid + "} 16452157440"));
  EXPECT_EQ(text.find("Xorg"), std::string::npos);
  EXPECT_TRUE(has_line(text, "nvidia_smi_compute_apps_last_collect_success 1"));
}

TEST(NvidiaSmiCompat, OffByDefaultBothFamiliesTogetherAndDownGpus) {
  core::Snapshot snap = h100_under_load();
  EXPECT_EQ(encode_prometheus(view_of(snap), {}).find("nvidia_smi_"), std::string::npos);
  EncodeOptions both;
  both.compat_dcgm = true;
  both.compat_nvidia_smi = true;
  std::string text = encode_prometheus(view_of(snap), both);
  EXPECT_NE(text.find("\nDCGM_FI_DEV_GPU_UTIL{"), std::string::npos);
  EXPECT_NE(text.find("\nnvidia_smi_utilization_gpu_ratio{"), std::string::npos);
  // A GPU that is down keeps its info series and loses its readings.
  live::LiveView down = view_of(snap);
  down.status[0].up = false;
  down.collector_success = false;
  EncodeOptions options;
  options.compat_nvidia_smi = true;
  text = encode_prometheus(down, options);
  EXPECT_NE(text.find("\nnvidia_smi_gpu_info{"), std::string::npos);
  EXPECT_EQ(text.find("nvidia_smi_utilization_gpu_ratio"), std::string::npos);
  EXPECT_EQ(text.find("nvidia_smi_compute_app_info"), std::string::npos);
  EXPECT_TRUE(has_line(text, "nvidia_smi_last_collect_success 0"));
}

TEST(NvidiaSmiCompat, EveryMappedFieldIsSampledAndNamesAreUnique) {
  auto fields = exported_fields();
  std::set<std::string> names;
  for (const auto& m : nvidia_smi_metrics()) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), m.field), fields.end()) << m.name;
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_EQ(m.name.rfind("nvidia_smi_", 0), 0U) << m.name;
    // Counters end in _total; as in that exporter, the ECC *_total series are gauges.
    if (m.type == MetricType::Counter) EXPECT_EQ(m.name.substr(m.name.size() - 6), "_total") << m.name;
  }
  for (FieldId f : nvidia_smi_fields()) EXPECT_NE(std::find(fields.begin(), fields.end(), f), fields.end());
}

}  // namespace nvidia_smi_compat_test
}  // namespace gpuwatch::exporter
