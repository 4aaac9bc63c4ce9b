// Xid, recovery-action and fabric-state series, native and nvidia_gpu_exporter's; and the
// collector's field list per family.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/field_table.hpp"
#include "exporter/dcgm_compat.hpp"
#include "exporter/metric_list.hpp"
#include "exporter/nvidia_smi_compat.hpp"
#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {
namespace xid_metrics_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::Snapshot two_gpus() {
  core::Snapshot snap;
  snap.device_count = 2;
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(FieldId::Uuid) = FieldReading::of(std::string(i == 0 ? "GPU-AAAA0000-1111" : "GPU-BBBB0000-2222"));
    d.get(FieldId::GpuRecoveryAction) = FieldReading::of(std::int64_t{i == 0 ? 0 : 1});  // GPU 1: GPU Reset
    if (i == 0) d.get(FieldId::FabricState) = FieldReading::of(std::int64_t{3});          // Completed
    else d.get(FieldId::FabricState) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
    snap.devices.push_back(d);
  }
  return snap;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

live::LiveView view_of(const core::Snapshot& snap, bool gpu1_up = true) {
  live::LiveView view{&snap, {live::DeviceStatus{true, true, 0.1, 0.01}, live::DeviceStatus{true, gpu1_up, 0.1, 0.01}}, {}, {}, true};
  view.xid_events = {live::XidCount{1, 31, 2, 1764412800.5}, live::XidCount{1, 48, 1, 1764412801.25}};
  return view;
}

TEST(XidMetrics, NativeSeriesPerGpuAndXid) {
  core::Snapshot snap = two_gpus();
  std::string text = encode_prometheus(view_of(snap), {});
  EXPECT_TRUE(has_line(text, "# TYPE gpuwatch_xid_errors_total counter")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_xid_errors_total{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia",xid="31"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_xid_errors_total{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia",xid="48"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_xid_last_timestamp_seconds{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia",xid="48"} 1764412801.25)"))
      << text;
  EXPECT_EQ(text.find(R"(gpuwatch_xid_errors_total{gpu="0")"), std::string::npos);  // no event, no series (not 0)
  EXPECT_TRUE(has_line(text, R"(gpuwatch_gpu_recovery_action{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_fabric_state{gpu="0",uuid="GPU-AAAA0000-1111",vendor="nvidia"} 3)")) << text;
  EXPECT_EQ(text.find(R"(gpuwatch_fabric_state{gpu="1")"), std::string::npos);  // no fabric: absent
}

TEST(XidMetrics, NvidiaSmiFamilyAndKeptWhileTheGpuIsDown) {
  core::Snapshot snap = two_gpus();
  EncodeOptions options;
  options.compat_nvidia_smi = true;
  std::string text = encode_prometheus(view_of(snap, false), options);
  EXPECT_TRUE(has_line(text, R"(nvidia_smi_xid_errors_total{uuid="bbbb0000-2222",xid="31"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(nvidia_smi_xid_last_timestamp_seconds{uuid="bbbb0000-2222",xid="31"} 1764412800.5)"))
      << text;
  // GPU 1 is down: its field series go, its Xid counters stay (Xids come when sampling fails).
  EXPECT_EQ(text.find(R"(nvidia_smi_gpu_recovery_action{uuid="bbbb0000-2222"})"), std::string::npos);
  EXPECT_TRUE(has_line(text, R"(nvidia_smi_gpu_recovery_action{uuid="aaaa0000-1111"} 0)")) << text;
  EXPECT_TRUE(has_line(text, R"(nvidia_smi_fabric_state{uuid="aaaa0000-1111"} 3)")) << text;
  EXPECT_TRUE(has_line(text, R"(gpuwatch_xid_errors_total{gpu="1",uuid="GPU-BBBB0000-2222",vendor="nvidia",xid="31"} 2)"));
}

TEST(XidMetrics, NoXidSeenWritesNoFamily) {
  core::Snapshot snap = two_gpus();
  live::LiveView view = view_of(snap);
  view.xid_events.clear();
  EncodeOptions options;
  options.compat_nvidia_smi = true;
  std::string text = encode_prometheus(view, options);
  EXPECT_EQ(text.find("xid"), std::string::npos);
}

TEST(CollectedFields, NvidiaSmiExtrasOnlyWhenThatFamilyIsOn) {
  auto contains = [](const std::vector<FieldId>& v, FieldId f) { return std::find(v.begin(), v.end(), f) != v.end(); };
  auto native = collected_fields(false);
  auto all = collected_fields(true);
  for (FieldId f : {FieldId::PciSubDeviceId, FieldId::ComputeMode, FieldId::ClocksEventReasonsSupported,
                    FieldId::ClocksEventReasonsGpuIdle, FieldId::ClocksEventReasonsApplicationsClocksSetting,
                    FieldId::ClocksEventReasonsSyncBoost}) {
    EXPECT_FALSE(contains(native, f)) << core::field_info(f).name;
    EXPECT_TRUE(contains(all, f)) << core::field_info(f).name;
  }
  for (const auto& spec : metric_specs()) EXPECT_TRUE(contains(native, spec.field)) << spec.name;
  for (const auto& m : dcgm_metrics()) EXPECT_TRUE(contains(native, m.field)) << m.name;
  for (const auto& label : info_labels()) EXPECT_TRUE(contains(native, label.field));
  EXPECT_EQ(exported_fields(), all);  // the JSON snapshot's keys do not depend on the families
  EXPECT_GE(all.size(), native.size() + 6);
}

}  // namespace xid_metrics_test
}  // namespace gpuwatch::exporter
