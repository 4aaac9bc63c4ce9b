#include "sampler/gpu_selection.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::sampler {
namespace {

TEST(GpuSelection, ParsesGpuIndexLists) {
  EXPECT_EQ(parse_gpu_indices("0").value(), (std::vector<unsigned>{0}));
  EXPECT_EQ(parse_gpu_indices("0,2,7").value(), (std::vector<unsigned>{0, 2, 7}));
  EXPECT_FALSE(parse_gpu_indices("").has_value());
  EXPECT_FALSE(parse_gpu_indices("0,,1").has_value());
  EXPECT_FALSE(parse_gpu_indices("GPU-1234").has_value());
  EXPECT_FALSE(parse_gpu_indices("-1").has_value());
  EXPECT_FALSE(parse_gpu_indices("1x").has_value());
}

core::Snapshot identities() {
  core::Snapshot s;
  for (unsigned i = 0; i < 3; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(core::FieldId::Uuid) = core::FieldReading::of(fmt::format("GPU-{}aaa-bbbb", i + 1));
    d.get(core::FieldId::PciBusId) = core::FieldReading::of(fmt::format("00000000:{:02X}:00.0", 0x18 + i * 0x10));
    s.devices.push_back(d);
  }
  return s;
}

TEST(GpuSelection, ResolvesIndicesUuidsAndBusIdsLikeNvidiaSmi) {
  auto s = identities();
  EXPECT_EQ(resolve_gpu_ids("2,GPU-1aaa-bbbb", s).value(), (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(resolve_gpu_ids("gpu-2aaa", s).value(), (std::vector<unsigned>{1}));           // unique prefix
  EXPECT_EQ(resolve_gpu_ids("00000000:38:00.0", s).value(), (std::vector<unsigned>{2}));
  EXPECT_EQ(resolve_gpu_ids("28:00.0", s).value(), (std::vector<unsigned>{1}));            // without the domain
  EXPECT_FALSE(resolve_gpu_ids("GPU-9", s).has_value());
  EXPECT_FALSE(resolve_gpu_ids("GPU-", s).has_value());                                    // ambiguous / too short
  EXPECT_FALSE(resolve_gpu_ids("", s).has_value());
}

}  // namespace
}  // namespace gpuwatch::sampler
