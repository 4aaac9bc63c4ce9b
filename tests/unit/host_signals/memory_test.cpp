#include "host_signals/memory.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace memory_test {

TEST(HostMemInfo, ReadsTotalAvailableAndSwapInBytes) {
  const MemInfo m = parse_meminfo(
      "MemTotal:       24683656 kB\n"
      "MemFree:         1310176 kB\n"
      "MemAvailable:   23601608 kB\n"
      "Buffers:          161236 kB\n"
      "SwapCached:            0 kB\n"
      "SwapTotal:       8388604 kB\n"
      "SwapFree:        8388000 kB\n"
      "HugePages_Total:       0\n");
  EXPECT_EQ(m.total_bytes, 24683656ull * 1024);
  EXPECT_EQ(m.available_bytes, 23601608ull * 1024);
  EXPECT_EQ(m.swap_total_bytes, 8388604ull * 1024);
  EXPECT_EQ(m.swap_free_bytes, 8388000ull * 1024);
}

TEST(HostMemInfo, KernelBefore314HasNoMemAvailableAndItIsAbsent) {
  const MemInfo m = parse_meminfo("MemTotal:        1000 kB\nMemFree:          500 kB\n");
  EXPECT_EQ(m.total_bytes, 1024000u);
  EXPECT_FALSE(m.available_bytes);
  EXPECT_FALSE(m.swap_total_bytes);
}

TEST(HostVmStat, ReadsSwapPagesAndLeavesAbsentWhenMissing) {
  const SwapCounters s = parse_vmstat("nr_free_pages 3000\npswpin 12\npswpout 345\npgfault 9\n");
  EXPECT_EQ(s.pages_in, 12u);
  EXPECT_EQ(s.pages_out, 345u);
  const SwapCounters none = parse_vmstat("nr_free_pages 3000\n");
  EXPECT_FALSE(none.pages_in);
  EXPECT_FALSE(none.pages_out);
}

}  // namespace memory_test
}  // namespace gpuwatch::host_signals
