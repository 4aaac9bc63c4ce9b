#include "push/snappy_block.hpp"

#include <gtest/gtest.h>

#include <string>

namespace snappy_block_test {

TEST(PushSnappyBlock, RoundTripAndCorruptInputRefused) {
  std::string raw;
  for (int i = 0; i < 1000; ++i) raw += "gpuwatch_power_watts{gpu=\"" + std::to_string(i % 8) + "\"} 123.5\n";
  const auto packed = gpuwatch::push::snappy_compress(raw);
  EXPECT_LT(packed.size(), raw.size() / 4);
  EXPECT_EQ(gpuwatch::push::snappy_uncompress(packed), raw);
  EXPECT_FALSE(gpuwatch::push::snappy_uncompress("\xff\xff\xff\xff\xffgarbage").has_value());
}

}  // namespace snappy_block_test
