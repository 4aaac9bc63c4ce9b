#include "jobs/visible_devices.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::jobs {
namespace {

TEST(VisibleDevices, UnsetShowsEveryGpu) {
  auto v = parse_visible_devices(std::nullopt);
  EXPECT_FALSE(v.restricted);
  EXPECT_TRUE(is_visible(v, 7, "GPU-abc"));
}

TEST(VisibleDevices, IndicesSelectThoseGpusOnly) {
  auto v = parse_visible_devices("2,3");
  ASSERT_EQ(v.devices.size(), 2u);
  EXPECT_TRUE(is_visible(v, 2, "GPU-x"));
  EXPECT_TRUE(is_visible(v, 3, "GPU-y"));
  EXPECT_FALSE(is_visible(v, 0, "GPU-z"));
  EXPECT_FALSE(is_visible(v, 1, "GPU-w"));
}

TEST(VisibleDevices, GpuUuidMatchesByPrefixAsCudaDoes) {
  auto v = parse_visible_devices(" GPU-1234abcd ");
  EXPECT_TRUE(is_visible(v, 5, "GPU-1234abcd-0000-1111"));
  EXPECT_FALSE(is_visible(v, 5, "GPU-9999"));
  EXPECT_FALSE(is_visible(v, 5, ""));  // a GPU whose UUID was not read is not taken for it
}

TEST(VisibleDevices, MigUuidSelectsOnlyThatInstance) {
  auto v = parse_visible_devices("MIG-aaaa-1111");
  EXPECT_TRUE(is_visible(v, 0, "GPU-parent", std::string_view("MIG-aaaa-1111")));
  EXPECT_FALSE(is_visible(v, 0, "GPU-parent", std::string_view("MIG-bbbb-2222")));
  EXPECT_FALSE(is_visible(v, 0, "GPU-parent"));  // the whole GPU is not visible
}

TEST(VisibleDevices, ParsingStopsAtTheFirstBadEntryLikeCuda) {
  auto v = parse_visible_devices("1,-1,2");
  ASSERT_EQ(v.devices.size(), 1u);
  EXPECT_EQ(v.ignored, "-1,2");
  EXPECT_TRUE(is_visible(v, 1, ""));
  EXPECT_FALSE(is_visible(v, 2, ""));
}

TEST(VisibleDevices, EmptyOrMinusOneHidesEveryGpu) {
  for (const char* value : {"", "-1"}) {
    auto v = parse_visible_devices(value);
    EXPECT_TRUE(v.restricted) << value;
    EXPECT_FALSE(is_visible(v, 0, "GPU-a")) << value;
  }
}

}  // namespace
}  // namespace gpuwatch::jobs
