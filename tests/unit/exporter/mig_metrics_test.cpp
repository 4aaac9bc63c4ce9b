// MIG and GPM series: native gpuwatch_mig_* and nvidia_gpu_exporter's nvidia_smi_mig_*,
// memory once per GPU instance, activity only where measured; the whole-GPU GPM ratios
// under their native and DCGM names.
#include <gtest/gtest.h>

#include <string>

#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {
namespace mig_metrics_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

core::MigDeviceSample mig(const char* uuid, std::uint32_t gi, std::uint32_t ci, const char* profile, std::uint64_t total_mib) {
  core::MigDeviceSample m;
  m.uuid = uuid;
  m.gpu_instance_id = gi;
  m.compute_instance_id = ci;
  m.profile = profile;
  m.memory_total_bytes = total_mib << 20;
  m.memory_used_bytes = 1ull << 20;
  m.memory_free_bytes = (total_mib - 1) << 20;
  return m;
}

// GPU 0: an H100 in MIG mode, GPU instance 1 with two compute instances (activity measured),
// GPU instance 2 without a window yet. GPU 1: no MIG, whole-GPU GPM ratios.
core::Snapshot snapshot() {
  core::Snapshot snap;
  snap.device_count = 2;
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(FieldId::Uuid) = FieldReading::of(std::string(i == 0 ? "GPU-AAAA0000-1111" : "GPU-BBBB0000-2222"));
    snap.devices.push_back(d);
  }
  auto& d0 = snap.devices[0];
  d0.mig_devices = {mig("MIG-1", 1, 0, "1c.3g.40gb", 40448), mig("MIG-2", 1, 1, "2c.3g.40gb", 40448),
                    mig("MIG-3", 2, 0, "1g.10gb", 9856)};
  core::GpuInstanceActivity a;
  a.gpu_instance_id = 1;
  a.ratios = {{FieldId::GpmTensorActive, 0.625}, {FieldId::GpmSmActive, 0.5}};
  a.pcie_rx_bytes_per_s = 2048.0;
  d0.gpu_instance_activity = {a};
  d0.get(FieldId::GpmTensorActive) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  auto& d1 = snap.devices[1];
  d1.get(FieldId::GpmTensorActive) = FieldReading::of(0.75);
  d1.get(FieldId::GpmGraphicsActive) = FieldReading::of(1.0);
  d1.get(FieldId::GpmSmOccupancy) = FieldReading::absent(core::FieldStatus::NotRead);  // first sample
  return snap;
}

live::LiveView view_of(const core::Snapshot& snap, bool gpu0_up = true) {
  return live::LiveView{&snap, {live::DeviceStatus{true, gpu0_up, 0.1, 0.01}, live::DeviceStatus{true, true, 0.1, 0.01}}, {}, {}, true};
}

TEST(MigMetrics, NativeInfoMemoryOncePerGpuInstanceAndActivity) {
  core::Snapshot snap = snapshot();
  std::string text = encode_prometheus(view_of(snap), {});
  const std::string gpu0 = R"(gpu="0",uuid="GPU-AAAA0000-1111",vendor="nvidia")";
  EXPECT_TRUE(has_line(text, "gpuwatch_mig_info{" + gpu0 +
                                 R"(,mig_uuid="MIG-2",gpu_instance_id="1",compute_instance_id="1",profile="2c.3g.40gb"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_mig_memory_total_bytes{" + gpu0 + R"(,gpu_instance_id="1"} 42412802048)")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_mig_memory_total_bytes{" + gpu0 + R"(,gpu_instance_id="2"} 10334765056)")) << text;
  std::size_t first = text.find("gpuwatch_mig_memory_used_bytes{" + gpu0 + R"(,gpu_instance_id="1"})");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_mig_memory_used_bytes{" + gpu0 + R"(,gpu_instance_id="1"})", first + 1), std::string::npos);
  EXPECT_EQ(text.find("gpuwatch_mig_memory_reserved_bytes"), std::string::npos);  // not read: no series
  EXPECT_TRUE(has_line(text, "gpuwatch_mig_tensor_active_ratio{" + gpu0 + R"(,gpu_instance_id="1"} 0.625)")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_mig_pcie_rx_bytes_per_second{" + gpu0 + R"(,gpu_instance_id="1"} 2048)")) << text;
  EXPECT_EQ(text.find(R"(gpu_instance_id="2"} 0)"), std::string::npos);  // no window: absent, never 0
  EXPECT_EQ(text.find("gpuwatch_mig_pcie_tx_bytes_per_second"), std::string::npos);
  EXPECT_TRUE(has_line(text, "# TYPE gpuwatch_mig_tensor_active_ratio gauge")) << text;
}

TEST(MigMetrics, NothingForAGpuThatIsNotUp) {
  core::Snapshot snap = snapshot();
  std::string text = encode_prometheus(view_of(snap, false), {});
  EXPECT_EQ(text.find("gpuwatch_mig_"), std::string::npos) << text;
  snap.devices[0].mig_devices.clear();
  snap.devices[0].gpu_instance_activity.clear();
  text = encode_prometheus(view_of(snap), EncodeOptions{.compat_nvidia_smi = true});
  EXPECT_EQ(text.find("mig_info"), std::string::npos);  // no MIG anywhere: no family at all
}

TEST(MigMetrics, NvidiaGpuExporterNames) {
  core::Snapshot snap = snapshot();
  std::string text = encode_prometheus(view_of(snap), EncodeOptions{.compat_nvidia_smi = true});
  const std::string uuid = R"(uuid="aaaa0000-1111")";
  EXPECT_TRUE(has_line(text, "nvidia_smi_mig_info{" + uuid +
                                 R"(,mig_uuid="MIG-3",gpu_instance_id="2",compute_instance_id="0",profile="1g.10gb"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_mig_memory_free_bytes{" + uuid + R"(,gpu_instance_id="2"} 10333716480)")) << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_mig_tensor_activity_ratio{" + uuid + R"(,gpu_instance_id="1"} 0.625)")) << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_mig_sm_activity_ratio{" + uuid + R"(,gpu_instance_id="1"} 0.5)")) << text;
  EXPECT_TRUE(has_line(text, "nvidia_smi_mig_pcie_throughput_rx_bytes_per_second{" + uuid + R"(,gpu_instance_id="1"} 2048)"))
      << text;
  EXPECT_EQ(text.find("nvidia_smi_mig_graphics_activity_ratio{"), std::string::npos);  // not measured
}

TEST(GpmMetrics, WholeGpuRatiosNativeAndDcgmOnlyWhereMeasured) {
  core::Snapshot snap = snapshot();
  std::string text = encode_prometheus(view_of(snap), EncodeOptions{.compat_dcgm = true});
  EXPECT_TRUE(has_line(text, R"(gpuwatch_tensor_active_ratio{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia"} 0.75)")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_graphics_active_ratio{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia"} 1)")) << text;
  EXPECT_EQ(text.find("gpuwatch_sm_occupancy_ratio{"), std::string::npos);  // first sample: no series
  EXPECT_EQ(text.find(R"(gpuwatch_tensor_active_ratio{gpu="0")"), std::string::npos);  // MIG parent: not supported
  EXPECT_NE(text.find("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"1\""), std::string::npos) << text;
  EXPECT_NE(text.find("} 0.75\n", text.find("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{")), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\""), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_PROF_SM_OCCUPANCY{"), std::string::npos);
}

}  // namespace mig_metrics_test
}  // namespace gpuwatch::exporter
