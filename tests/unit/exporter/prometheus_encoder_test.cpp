#include "exporter/prometheus_encoder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/field_table.hpp"

namespace gpuwatch::exporter {
namespace prometheus_encoder_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::DeviceSnapshot;
using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

DeviceSnapshot device(unsigned index, std::string uuid) {
  DeviceSnapshot d;
  d.index = index;
  d.get(FieldId::Index) = FieldReading::of(std::int64_t{index});
  d.get(FieldId::Uuid) = FieldReading::of(std::move(uuid));
  d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
  d.get(FieldId::PciBusId) = FieldReading::of(std::string("00000000:18:00.0"));
  return d;
}

live::DeviceStatus fresh(double age = 0.25, double duration = 0.004) { return live::DeviceStatus{true, true, age, duration}; }

// Everything but the self-metrics header, which has its own test.
std::string body_after_self(const std::string& text) {
  auto at = text.find("# HELP gpuwatch_gpu_info");
  return at == std::string::npos ? text : text.substr(at);
}

TEST(PrometheusEncoder, GoldenOneGpu) {
  core::Snapshot snap;
  snap.driver_version = "550.54.15";
  snap.device_count = 1;
  snap.devices.push_back(device(0, "GPU-aaaa"));
  auto& d = snap.devices[0];
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.93);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{85899345920});
  d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{67});
  d.get(FieldId::PowerDraw) = FieldReading::of(631.95);
  d.get(FieldId::EnergyTotal) = FieldReading::of(123456.5);
  d.get(FieldId::ClocksEventReasonsHwThermalSlowdown) = FieldReading::of(false);
  d.get(FieldId::FanSpeed) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});

  live::LiveView view{&snap, {fresh()}, {}, {}, true};
  std::string text = encode_prometheus(view, EncodeOptions{false, "1.2.3"});
  EXPECT_EQ(body_after_self(text),
            "# HELP gpuwatch_gpu_info GPU identity, always 1; the labels carry it\n"
            "# TYPE gpuwatch_gpu_info gauge\n"
            "gpuwatch_gpu_info{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\",driver_version=\"550.54.15\","
            "name=\"NVIDIA H100 80GB HBM3\",pci_bus_id=\"00000000:18:00.0\"} 1\n"
            "# HELP gpuwatch_utilization_gpu_ratio Share of the last sample period in which a kernel was running "
            "(query field utilization.gpu)\n"
            "# TYPE gpuwatch_utilization_gpu_ratio gauge\n"
            "gpuwatch_utilization_gpu_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\"} 0.93\n"
            "# HELP gpuwatch_memory_used_bytes " +
                std::string(core::field_info(FieldId::MemoryUsed).description) +
                " (query field memory.used)\n"
                "# TYPE gpuwatch_memory_used_bytes gauge\n"
                "gpuwatch_memory_used_bytes{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\"} 85899345920\n"
                "# HELP gpuwatch_temperature_gpu_celsius " +
                std::string(core::field_info(FieldId::TemperatureGpu).description) +
                " (query field temperature.gpu)\n"
                "# TYPE gpuwatch_temperature_gpu_celsius gauge\n"
                "gpuwatch_temperature_gpu_celsius{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\"} 67\n"
                "# HELP gpuwatch_power_draw_watts " +
                std::string(core::field_info(FieldId::PowerDraw).description) +
                " (query field power.draw)\n"
                "# TYPE gpuwatch_power_draw_watts gauge\n"
                "gpuwatch_power_draw_watts{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\"} 631.95\n"
                "# HELP gpuwatch_energy_joules_total Energy the GPU used in joules. source=\"counter\": the driver's "
                "counter (energy.total) since the driver was loaded; "
                "source=\"estimated\" (GPUs without that counter): power.draw integrated over gpuwatch's samples "
                "since gpuwatch started, not across gaps longer than the stale limit or while the GPU is lost\n"
                "# TYPE gpuwatch_energy_joules_total counter\n"
                "gpuwatch_energy_joules_total{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\",source=\"counter\"} 123456.5\n"
                "# HELP gpuwatch_clocks_event_reasons_hw_thermal_slowdown " +
                std::string(core::field_info(FieldId::ClocksEventReasonsHwThermalSlowdown).description) +
                " (query field clocks_event_reasons.hw_thermal_slowdown)\n"
                "# TYPE gpuwatch_clocks_event_reasons_hw_thermal_slowdown gauge\n"
                "gpuwatch_clocks_event_reasons_hw_thermal_slowdown{gpu=\"0\",uuid=\"GPU-aaaa\",vendor=\"nvidia\"} 0\n");
}

TEST(PrometheusEncoder, GoldenSelfMetrics) {
  core::Snapshot snap;
  snap.device_count = 2;
  snap.devices.push_back(device(0, "GPU-a"));
  snap.devices.push_back(device(1, "GPU-b"));
  snap.devices[1].state = core::DeviceState::Lost;
  snap.devices[1].error = {core::ErrorReason::GpuLost, 15};
  live::LiveView view{&snap, {fresh(0.5, 0.125), live::DeviceStatus{true, false, 12.0, 0.001}}, {{"power.draw", 999, 7}}, {}, false};
  std::string text = encode_prometheus(view, EncodeOptions{false, "1.2.3"});
  std::string self = text.substr(0, text.find("# HELP gpuwatch_gpu_info"));
  EXPECT_EQ(self,
            "# HELP gpuwatch_build_info gpuwatch build, always 1\n"
            "# TYPE gpuwatch_build_info gauge\n"
            "gpuwatch_build_info{version=\"1.2.3\"} 1\n"
            "# HELP gpuwatch_collector_success 1 when every GPU was sampled fresh, 0 otherwise\n"
            "# TYPE gpuwatch_collector_success gauge\n"
            "gpuwatch_collector_success 0\n"
            "# HELP gpuwatch_gpus GPUs that NVML reports (nvmlDeviceGetCount)\n"
            "# TYPE gpuwatch_gpus gauge\n"
            "gpuwatch_gpus 2\n"
            "# HELP gpuwatch_up 1 when the GPU's latest sample is fresh and the GPU answered, 0 otherwise\n"
            "# TYPE gpuwatch_up gauge\n"
            "gpuwatch_up{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 1\n"
            "gpuwatch_up{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 0\n"
            "# HELP gpuwatch_gpu_lost 1 when NVML reports the GPU lost (fell off the bus), 0 otherwise\n"
            "# TYPE gpuwatch_gpu_lost gauge\n"
            "gpuwatch_gpu_lost{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 0\n"
            "gpuwatch_gpu_lost{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 1\n"
            "# HELP gpuwatch_sample_age_seconds Seconds since the GPU's latest finished sample started (grows while "
            "an NVML call hangs)\n"
            "# TYPE gpuwatch_sample_age_seconds gauge\n"
            "gpuwatch_sample_age_seconds{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 0.5\n"
            "gpuwatch_sample_age_seconds{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 12\n"
            "# HELP gpuwatch_collector_duration_seconds How long the GPU's latest sample took\n"
            "# TYPE gpuwatch_collector_duration_seconds gauge\n"
            "gpuwatch_collector_duration_seconds{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 0.125\n"
            "gpuwatch_collector_duration_seconds{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 0.001\n"
            "# HELP gpuwatch_nvml_errors_total Failed NVML reads by field and NVML return code\n"
            "# TYPE gpuwatch_nvml_errors_total counter\n"
            "gpuwatch_nvml_errors_total{field=\"power.draw\",code=\"999\"} 7\n");
}

TEST(PrometheusEncoder, AbsentValuesGiveNoSeriesNeverZero) {
  core::Snapshot snap;
  snap.device_count = 1;
  snap.devices.push_back(device(0, "GPU-a"));
  snap.devices[0].get(FieldId::PowerDraw) = FieldReading::absent(FieldStatus::Failed, core::ReadError{core::ErrorReason::Other, 999});
  snap.devices[0].get(FieldId::FanSpeed) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  snap.devices[0].get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{0});  // a real 0 stays
  live::LiveView view{&snap, {fresh()}, {}, {}, true};
  std::string text = encode_prometheus(view, {});
  EXPECT_EQ(text.find("gpuwatch_power_draw_watts"), std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_fan_speed_ratio"), std::string::npos);
  EXPECT_NE(text.find("gpuwatch_temperature_gpu_celsius{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 0\n"), std::string::npos);
}

TEST(PrometheusEncoder, StaleGpuKeepsIdentityAndDropsFieldSeries) {
  core::Snapshot snap;
  snap.device_count = 2;
  snap.devices.push_back(device(0, "GPU-a"));
  snap.devices.push_back(device(1, "GPU-b"));
  for (auto& d : snap.devices) d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{1024});
  live::LiveView view{&snap, {fresh(), live::DeviceStatus{true, false, 30.5, 0.2}}, {}, {}, false};
  std::string text = encode_prometheus(view, {});
  EXPECT_NE(text.find("gpuwatch_memory_used_bytes{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 1024\n"), std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_memory_used_bytes{gpu=\"1\""), std::string::npos);
  EXPECT_NE(text.find("gpuwatch_up{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuwatch_sample_age_seconds{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\"} 30.5\n"), std::string::npos);
  EXPECT_NE(text.find("gpuwatch_gpu_info{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\""), std::string::npos);
}

TEST(PrometheusEncoder, NeverSampledGpuHasNoAge) {
  core::Snapshot snap;
  snap.device_count = 1;
  snap.devices.push_back(DeviceSnapshot{});
  live::LiveView view{&snap, {live::DeviceStatus{}}, {}, {}, false};
  std::string text = encode_prometheus(view, {});
  EXPECT_NE(text.find("gpuwatch_up{gpu=\"0\",uuid=\"\",vendor=\"nvidia\"} 0\n"), std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_sample_age_seconds{"), std::string::npos);
}

TEST(PrometheusEncoder, LabelValuesAreEscaped) {
  core::Snapshot snap;
  snap.device_count = 1;
  snap.devices.push_back(device(0, "GPU-a"));
  snap.devices[0].get(FieldId::Name) = FieldReading::of(std::string("Weird \"GPU\"\\\n"));
  live::LiveView view{&snap, {fresh()}, {}, {}, true};
  std::string text = encode_prometheus(view, {});
  EXPECT_NE(text.find("name=\"Weird \\\"GPU\\\"\\\\\\n\""), std::string::npos) << text;
}

TEST(PrometheusEncoder, PerProcessSeriesOnlyWhenAsked) {
  core::Snapshot snap;
  snap.device_count = 1;
  snap.devices.push_back(device(0, "GPU-a"));
  core::ProcessSample p;
  p.pid = 4242;
  p.name = "python";
  p.used_memory_bytes = 1048576;
  p.sm_ratio = 0.5;
  snap.devices[0].processes.push_back(p);
  core::ProcessSample q;
  q.pid = 77;
  q.name = "xorg";
  q.type = core::ProcessType::Graphics;  // no memory known: no memory series
  snap.devices[0].processes.push_back(q);
  live::LiveView view{&snap, {fresh()}, {}, {{4242, "alice"}}, true};
  // Processes not read: no count (absent, not 0).
  EXPECT_EQ(encode_prometheus(view, {}).find("gpuwatch_processes{"), std::string::npos);
  snap.devices[0].processes_status = core::FieldStatus::Ok;
  EXPECT_EQ(encode_prometheus(view, {}).find("gpuwatch_process_"), std::string::npos);
  EXPECT_NE(encode_prometheus(view, {}).find("gpuwatch_processes{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\"} 2\n"), std::string::npos);
  std::string text = encode_prometheus(view, EncodeOptions{true, ""});
  EXPECT_NE(text.find("# TYPE gpuwatch_process_memory_used_bytes gauge\n"
                      "gpuwatch_process_memory_used_bytes{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\",pid=\"4242\",process_name=\"python\","
                      "user=\"alice\",type=\"C\"} 1048576\n# HELP"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuwatch_process_sm_utilization_ratio{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\",pid=\"4242\",process_name="
                      "\"python\",user=\"alice\",type=\"C\"} 0.5\n"),
            std::string::npos);
  EXPECT_EQ(text.find("pid=\"77\""), std::string::npos);
}

TEST(PrometheusEncoder, MismatchedStatusGivesEmptyOutput) {
  core::Snapshot snap;
  snap.devices.push_back(device(0, "GPU-a"));
  live::LiveView view{&snap, {}, {}, {}, true};
  EXPECT_EQ(encode_prometheus(view, {}), "");
}

}  // namespace prometheus_encoder_test
}  // namespace gpuwatch::exporter

namespace gpuwatch::exporter {
namespace prometheus_encoder_test {  // this test file's helpers (unity builds: no clash with another file's)

TEST(OpenMetrics, CounterFamiliesLoseTotalAndTheTextEndsWithEof) {
  std::string text =
      "# HELP gpuwatch_up Up.\n# TYPE gpuwatch_up gauge\ngpuwatch_up{gpu=\"0\"} 1\n"
      "# HELP gpuwatch_energy_joules_total Energy.\n# TYPE gpuwatch_energy_joules_total counter\n"
      "gpuwatch_energy_joules_total{gpu=\"0\"} 12.5\n"
      "# HELP DCGM_FI_DEV_PCIE_REPLAY_COUNTER Retries.\n# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER counter\n"
      "DCGM_FI_DEV_PCIE_REPLAY_COUNTER{gpu=\"0\"} 0\n";
  to_openmetrics(text);
  EXPECT_EQ(text,
            "# HELP gpuwatch_up Up.\n# TYPE gpuwatch_up gauge\ngpuwatch_up{gpu=\"0\"} 1\n"
            "# HELP gpuwatch_energy_joules Energy.\n# TYPE gpuwatch_energy_joules counter\n"
            "gpuwatch_energy_joules_total{gpu=\"0\"} 12.5\n"
            "# HELP DCGM_FI_DEV_PCIE_REPLAY_COUNTER Retries.\n# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER unknown\n"
            "DCGM_FI_DEV_PCIE_REPLAY_COUNTER{gpu=\"0\"} 0\n"
            "# EOF\n");
  std::string empty;
  to_openmetrics(empty);
  EXPECT_EQ(empty, "# EOF\n");
}

TEST(OpenMetrics, Negotiation) {
  EXPECT_TRUE(accepts_openmetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
  EXPECT_FALSE(accepts_openmetrics("text/plain;version=0.0.4"));
  EXPECT_FALSE(accepts_openmetrics(""));
}

}  // namespace prometheus_encoder_test
}  // namespace gpuwatch::exporter
