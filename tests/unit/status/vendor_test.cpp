// Issue 28: `status` names each GPU's vendor: a `vendor` key in JSON always; in text a vendor
// column only when some GPU is not NVIDIA's (a node of NVIDIA GPUs alone shows what it showed).
#include <gtest/gtest.h>

#include <string>

#include "status/json.hpp"
#include "status/text.hpp"
#include "unit/status/status_fixture.hpp"

namespace gpuwatch::status {
namespace status_vendor_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Snapshot with_amd_gpu_1() {
  auto s = testing::status_snapshot();
  s.devices[1].vendor = core::Vendor::Amd;
  s.devices[1].get(core::FieldId::Name) = core::FieldReading::of(std::string("AMD Instinct MI300X"));
  return s;
}

TEST(StatusVendor, JsonHasTheVendorKeyOnEveryGpu) {
  auto j = status_json(testing::status_snapshot(), testing::status_context());
  for (const auto& gpu : j["gpus"]) EXPECT_EQ(gpu["vendor"], "nvidia");
  j = status_json(with_amd_gpu_1(), testing::status_context());
  EXPECT_EQ(j["gpus"][0]["vendor"], "nvidia");
  EXPECT_EQ(j["gpus"][1]["vendor"], "amd");
  EXPECT_EQ(j["gpus"][2]["vendor"], "nvidia");  // a lost GPU keeps its vendor
}

TEST(StatusVendor, TextShowsAVendorColumnOnlyOnAMixedNode) {
  const std::string plain = render_status_text(testing::status_snapshot(), testing::status_context(), terminal::Style(false));
  EXPECT_EQ(plain.find("nvidia "), std::string::npos) << plain;
  EXPECT_NE(plain.find("[0] NVIDIA H100"), std::string::npos) << plain;

  const std::string mixed = render_status_text(with_amd_gpu_1(), testing::status_context(), terminal::Style(false));
  EXPECT_NE(mixed.find("[0] nvidia NVIDIA H100"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("[1] amd    AMD Instinct MI300X"), std::string::npos) << mixed;  // one column wide
  auto context = testing::status_context();
  context.columns = 100;  // compact: the name loses "NVIDIA ", the column says whose it is
  const std::string compact = render_status_text(with_amd_gpu_1(), context, terminal::Style(false));
  EXPECT_NE(compact.find("[0] nvidia H100"), std::string::npos) << compact;
  EXPECT_NE(compact.find("[1] amd    AMD"), std::string::npos) << compact;
}

TEST(StatusVendor, LostNonNvidiaGpuIsNotToldAboutXids) {
  auto s = with_amd_gpu_1();
  s.devices[2].vendor = core::Vendor::Intel;
  const std::string text = render_status_text(s, testing::status_context(), terminal::Style(false));
  EXPECT_NE(text.find("GPU is lost (fallen off the bus? check dmesg)"), std::string::npos) << text;
  EXPECT_EQ(text.find("Xid 79"), std::string::npos);
}

}  // namespace status_vendor_test
}  // namespace gpuwatch::status
