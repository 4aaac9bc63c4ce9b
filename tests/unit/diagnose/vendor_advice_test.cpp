// Issue 28: the advice of a finding in its GPU's vendor's words (diagnose/vendor_advice.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "diagnose/diagnoser.hpp"
#include "diagnose/kinds.hpp"
#include "snapshot_builder.hpp"

namespace gpuwatch::diagnose::testing {
namespace vendor_advice_test {  // this test file's helpers (unity builds: no clash with another file's)

bool any_line_has(const std::vector<std::string>& advice, const std::string& word) {
  return std::any_of(advice.begin(), advice.end(), [&](const std::string& a) { return a.find(word) != std::string::npos; });
}

TEST(VendorAdvice, NvidiaKeepsKindsDefWords) {
  for (const auto& info : kind_table()) {
    EXPECT_EQ(default_advice(info.kind, core::Vendor::Nvidia), default_advice(info.kind)) << info.id;
  }
  EXPECT_TRUE(any_line_has(default_advice(Kind::PowerCap, core::Vendor::Nvidia), "nvidia-smi -pl"));
}

TEST(VendorAdvice, AmdAndIntelNeverSayNvidiaSmi) {
  for (core::Vendor vendor : {core::Vendor::Amd, core::Vendor::Intel}) {
    for (const auto& info : kind_table()) {
      const auto advice = default_advice(info.kind, vendor);
      EXPECT_FALSE(any_line_has(advice, "nvidia-smi")) << info.id << " " << core::to_string(vendor);
      EXPECT_FALSE(any_line_has(advice, "/dev/nvidia")) << info.id << " " << core::to_string(vendor);
      EXPECT_FALSE(any_line_has(advice, "nvidia-persistenced")) << info.id << " " << core::to_string(vendor);
    }
  }
}

TEST(VendorAdvice, EachVendorsToolForPowerAndThermal) {
  EXPECT_TRUE(any_line_has(default_advice(Kind::PowerCap, core::Vendor::Amd), "amd-smi metric --power"));
  EXPECT_TRUE(any_line_has(default_advice(Kind::ThermalThrottle, core::Vendor::Amd), "amd-smi set --power-cap"));
  EXPECT_TRUE(any_line_has(default_advice(Kind::PowerCap, core::Vendor::Intel), "xpu-smi config -d N --powerlimit"));
  EXPECT_TRUE(any_line_has(default_advice(Kind::ThermalThrottle, core::Vendor::Intel), "xpu-smi config -d N --powerlimit"));
  EXPECT_TRUE(any_line_has(default_advice(Kind::OtherThrottle, core::Vendor::Intel), "xpu-smi stats"));
  EXPECT_TRUE(any_line_has(default_advice(Kind::EccUncorrectable, core::Vendor::Amd), "amd-smi reset --gpureset"));
  // A kind whose words name no tool says the same for every vendor.
  EXPECT_EQ(default_advice(Kind::InputStarved, core::Vendor::Amd), default_advice(Kind::InputStarved));
}

TEST(VendorAdvice, NvidiaOnlyKindsHaveNoAdviceForOthers) {
  for (Kind kind : {Kind::Xid, Kind::PersistenceOff, Kind::RowRemap, Kind::RecoveryAction}) {
    EXPECT_TRUE(applies_to(kind, core::Vendor::Nvidia));
    EXPECT_FALSE(applies_to(kind, core::Vendor::Amd));
    EXPECT_TRUE(default_advice(kind, core::Vendor::Intel).empty());
  }
  EXPECT_TRUE(applies_to(Kind::ThermalThrottle, core::Vendor::Amd));
}

// End to end through the engine: a thermally throttled AMD GPU's finding says amd-smi; the same
// samples on an NVIDIA GPU say nvidia-smi.
TEST(VendorAdvice, ThrottledAmdGpuFindingSaysAmdSmi) {
  for (core::Vendor vendor : {core::Vendor::Nvidia, core::Vendor::Amd}) {
    Diagnoser d;
    GpuValues hot{.util = 1.0, .power_w = 600.0, .reasons = kReasonSwThermal | kReasonHwThermal, .sm_hz = 1.0e9,
                  .max_sm_hz = 2.0e9};
    for (int t = 0; t < 200; ++t) {
      auto s = make_snapshot(t, hot);
      s.devices.front().vendor = vendor;
      d.observe(s);
    }
    const auto findings = d.findings();
    auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.kind == "thermal_throttle"; });
    ASSERT_NE(it, findings.end());
    EXPECT_EQ(any_line_has(it->advice, "amd-smi"), vendor == core::Vendor::Amd);
    EXPECT_EQ(any_line_has(it->advice, "nvidia-smi"), vendor == core::Vendor::Nvidia);
  }
}

TEST(VendorAdvice, PersistenceOffIsNeverRaisedForAnIntelGpu) {
  Diagnoser d;
  auto s = make_snapshot(0, {.util = 0.9, .power_w = 500.0});
  s.devices.front().vendor = core::Vendor::Intel;
  s.devices.front().get(core::FieldId::PersistenceMode) = core::FieldReading::of(false);
  d.observe(s);
  for (const auto& f : d.findings()) EXPECT_NE(f.kind, "persistence_off");
}

}  // namespace vendor_advice_test
}  // namespace gpuwatch::diagnose::testing
