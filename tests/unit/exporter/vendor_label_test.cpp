// Issue 28: the vendor label on gpuwatch's own per-GPU series; dcgm-exporter's and
// nvidia_gpu_exporter's names only for NVIDIA GPUs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "exporter/json_api.hpp"
#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {
namespace vendor_label_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::Snapshot mixed_node() {
  core::Snapshot s;
  s.device_count = 2;
  s.driver_version = "590.48.01";
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.vendor = i == 0 ? core::Vendor::Nvidia : core::Vendor::Amd;
    d.get(FieldId::Index) = FieldReading::of(std::int64_t{i});
    d.get(FieldId::Uuid) = FieldReading::of(std::string(i == 0 ? "GPU-0" : "AMD-0123456789abcdef"));
    d.get(FieldId::Name) = FieldReading::of(std::string(i == 0 ? "NVIDIA H100 80GB HBM3" : "AMD Instinct MI300X"));
    d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{50 + i});
    d.get(FieldId::UtilizationGpu) = FieldReading::of(0.5);
    d.processes_status = core::FieldStatus::Ok;
    s.devices.push_back(d);
  }
  return s;
}

live::LiveView view_of(const core::Snapshot& s) {
  live::LiveView v;
  v.snapshot = &s;
  v.status = {live::DeviceStatus{true, true, 0.1, 0.01}, live::DeviceStatus{true, true, 0.1, 0.01}};
  v.collector_success = true;
  return v;
}

TEST(VendorLabel, OwnSeriesCarryTheVendor) {
  const auto s = mixed_node();
  EncodeOptions options;
  const std::string text = encode_prometheus(view_of(s), options);
  EXPECT_NE(text.find("gpuwatch_up{gpu=\"0\",uuid=\"GPU-0\",vendor=\"nvidia\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpuwatch_up{gpu=\"1\",uuid=\"AMD-0123456789abcdef\",vendor=\"amd\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("{gpu=\"1\",uuid=\"AMD-0123456789abcdef\",vendor=\"amd\"} 51\n"), std::string::npos);
}

TEST(VendorLabel, CompatibilityFamiliesOnlyForNvidia) {
  const auto s = mixed_node();
  EncodeOptions options;
  options.compat_dcgm = true;
  options.compat_nvidia_smi = true;
  const std::string text = encode_prometheus(view_of(s), options);
  ASSERT_NE(text.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""), std::string::npos) << text;
  ASSERT_NE(text.find("nvidia_smi_gpu_info{"), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_TEMP{gpu=\"1\""), std::string::npos);
  EXPECT_EQ(text.find("AMD-0123456789abcdef\",device"), std::string::npos);  // dcgm's UUID label
  std::size_t at = 0;
  while ((at = text.find("\nnvidia_smi_", at)) != std::string::npos) {
    const auto end = text.find('\n', at + 1);
    EXPECT_EQ(text.substr(at, end - at).find("0123456789abcdef"), std::string::npos) << text.substr(at, end - at);
    at = end;
  }
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"1\""), std::string::npos);
}

TEST(VendorLabel, JsonApiSaysTheVendor) {
  const auto s = mixed_node();
  const auto j = nlohmann::json::parse(snapshot_json(view_of(s)));
  EXPECT_EQ(j["gpus"][0]["vendor"], "nvidia");
  EXPECT_EQ(j["gpus"][1]["vendor"], "amd");
}

}  // namespace vendor_label_test
}  // namespace gpuwatch::exporter
