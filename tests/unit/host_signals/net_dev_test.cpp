#include "host_signals/net_dev.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace net_dev_test {

TEST(HostNetDev, ReadsBytesPerInterfaceWithoutLoopback) {
  const auto nics = parse_net_dev(
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
      "    lo: 3285560405 3604522    0    0    0     0          0         0 3285560405 3604522    0    0    0     0       0          0\n"
      "  eth0: 533035592   14332    0    0    0     0          0         0  1193792   10464    0    0    0     0       0          0\n"
      "  ib0:12345 10 0 0 0 0 0 0 67890 20 0 0 0 0 0 0\n");
  ASSERT_EQ(nics.size(), 2u);
  EXPECT_EQ(nics[0].name, "eth0");
  EXPECT_EQ(nics[0].rx_bytes, 533035592u);
  EXPECT_EQ(nics[0].tx_bytes, 1193792u);
  EXPECT_EQ(nics[1].name, "ib0");  // old kernels: no space after the colon
  EXPECT_EQ(nics[1].rx_bytes, 12345u);
  EXPECT_EQ(nics[1].tx_bytes, 67890u);
}

TEST(HostNetDev, ShortOrBrokenLinesAreSkipped) {
  EXPECT_TRUE(parse_net_dev("eth0: 1 2 3\n").empty());
  EXPECT_TRUE(parse_net_dev("eth0: x 0 0 0 0 0 0 0 5 0\n").empty());
}

}  // namespace net_dev_test
}  // namespace gpuwatch::host_signals
