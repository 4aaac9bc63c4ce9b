// Issue 28: `top` tags each GPU with its vendor only when some GPU on the screen is not NVIDIA's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tui/model.hpp"

namespace gpuwatch::tui {
namespace vendor_tag_test {  // this test file's helpers (unity builds: no clash with another file's)

GpuView view_of(core::Vendor vendor) {
  core::DeviceSnapshot d;
  d.vendor = vendor;
  d.get(core::FieldId::Name) = core::FieldReading::of(std::string("some GPU"));
  return make_gpu_view(d, live::DeviceStatus{true, true, 0.1, 0.01}, {});
}

TEST(TuiVendorTag, NvidiaAloneIsUntaggedAMixIsTagged) {
  std::vector<GpuView> nvidia = {view_of(core::Vendor::Nvidia), view_of(core::Vendor::Nvidia)};
  tag_vendors(nvidia);
  for (const auto& g : nvidia) EXPECT_EQ(g.vendor_tag, "");
  std::vector<GpuView> mixed = {view_of(core::Vendor::Nvidia), view_of(core::Vendor::Intel)};
  tag_vendors(mixed);
  EXPECT_EQ(mixed[0].vendor_tag, "nvidia");
  EXPECT_EQ(mixed[1].vendor_tag, "intel");
}

}  // namespace vendor_tag_test
}  // namespace gpuwatch::tui
