#include "host_signals/infiniband.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace infiniband_test {

TEST(HostInfiniband, CountersAreNumbersAndDataIsInFourByteWords) {
  EXPECT_EQ(parse_counter("123456789\n"), 123456789u);
  EXPECT_FALSE(parse_counter(""));
  EXPECT_FALSE(parse_counter("N/A\n"));
  EXPECT_EQ(ib_data_bytes(1000), 4000u);
}

}  // namespace infiniband_test
}  // namespace gpuwatch::host_signals
