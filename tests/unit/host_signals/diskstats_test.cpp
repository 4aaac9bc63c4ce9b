#include "host_signals/diskstats.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace diskstats_test {

// A 6.x kernel (20 columns), a 4.19 one (14 columns) and a 2.6.18 partition line (7 columns).
constexpr const char* kDiskstats =
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 1647225 51650 56826666 2322937 1732884 537008 626311592 2625475 0 464868 5100150 493346 130 572806056 117960 419328 33776\n"
    " 254       1 vda1 1640000 51000 56800000 2300000 1700000 530000 626000000 2600000 0 460000 5000000 0 0 0 0 0 0\n"
    " 259       0 nvme0n1 100 0 2048 10 200 0 4096 20 0 1500 30\n"
    " 259       1 nvme0n1p1 100 0 2048 10 200 0 4096 20 0 1500 30\n"
    "   1       0 ram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 253       0 dm-0 5 0 10 0 5 0 10 0 0 1 1 0 0 0\n"
    "   8       1 sda1 300 600 400 800\n";

TEST(HostDiskstats, ReadsSectorsAndIoTicksOfEveryShape) {
  const auto disks = parse_diskstats(kDiskstats);
  ASSERT_EQ(disks.size(), 8u);
  EXPECT_EQ(disks[1].name, "vda");
  EXPECT_EQ(disks[1].sectors_read, 56826666u);
  EXPECT_EQ(disks[1].sectors_written, 626311592u);
  EXPECT_EQ(disks[1].io_ticks_ms, 464868u);
  EXPECT_EQ(disks[3].name, "nvme0n1");
  EXPECT_EQ(disks[3].io_ticks_ms, 1500u);
  EXPECT_EQ(disks[7].name, "sda1");  // 4 fields: no busy time
  EXPECT_EQ(disks[7].sectors_read, 600u);
  EXPECT_EQ(disks[7].sectors_written, 800u);
  EXPECT_FALSE(disks[7].io_ticks_ms);
}

TEST(HostDiskstats, CountsWholeDisksOnlyToldByName) {
  for (const char* skipped : {"vda1", "sda1", "nvme0n1p1", "mmcblk0p2", "loop0", "ram0", "zram0", "dm-0", "md127"})
    EXPECT_FALSE(counted_disk(skipped, std::nullopt)) << skipped;
  for (const char* counted : {"vda", "sda", "nvme0n1", "mmcblk0", "xvdb"}) EXPECT_TRUE(counted_disk(counted, std::nullopt)) << counted;
}

TEST(HostDiskstats, CountsWholeDisksOnlyToldBySysBlock) {
  const std::vector<std::string> sys_block = {"loop0", "nvme0n1", "sdb", "weird7"};
  EXPECT_TRUE(counted_disk("weird7", sys_block));  // a whole disk whose name ends in a digit
  EXPECT_TRUE(counted_disk("nvme0n1", sys_block));
  EXPECT_FALSE(counted_disk("sdb1", sys_block));
  EXPECT_FALSE(counted_disk("loop0", sys_block));  // listed, but a loop device
}

}  // namespace diskstats_test
}  // namespace gpuwatch::host_signals
