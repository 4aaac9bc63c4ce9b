#include "host_signals/proc_stat.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace proc_stat_test {

// A 6.x kernel's /proc/stat (2 CPUs), trimmed after the CPU lines.
constexpr const char* kModern =
    "cpu  5042451 88711 513940 2851970 23049 0 4842 3354 0 0\n"
    "cpu0 2441503 45099 243956 1522444 7119 0 1365 1633 0 0\n"
    "cpu1 2600948 43611 269983 1329526 15930 0 3476 1721 0 0\n"
    "intr 861717234 0 9 0 0\n"
    "ctxt 1713342424\n"
    "btime 1764600000\n"
    "procs_running 3\n";

TEST(HostProcStat, ReadsTotalAndEveryCoreWithAllEightStates) {
  const ProcStat stat = parse_proc_stat(kModern);
  ASSERT_TRUE(stat.total);
  EXPECT_EQ(stat.total->user, 5042451u);
  EXPECT_EQ(stat.total->idle, 2851970u);
  EXPECT_EQ(stat.total->iowait, 23049u);
  EXPECT_EQ(stat.total->steal, 3354u);
  EXPECT_EQ(stat.total->total(), 5042451u + 88711 + 513940 + 2851970 + 23049 + 0 + 4842 + 3354);
  EXPECT_EQ(stat.total->busy(), 5042451u + 88711 + 513940 + 0 + 4842);
  ASSERT_EQ(stat.cores.size(), 2u);
  EXPECT_EQ(stat.cores[1].first, 1u);
  EXPECT_EQ(stat.cores[1].second.system, 269983u);
}

TEST(HostProcStat, AnOldKernelsMissingColumnsAreAbsentNotZero) {
  // 2.4: user nice system idle only; 2.6.9: no steal.
  const ProcStat old = parse_proc_stat("cpu  100 2 30 400\ncpu0 100 2 30 400\n");
  ASSERT_TRUE(old.total);
  EXPECT_FALSE(old.total->iowait);
  EXPECT_FALSE(old.total->steal);
  EXPECT_EQ(old.total->total(), 532u);
  const ProcStat no_steal = parse_proc_stat("cpu  100 2 30 400 5 1 1\n");
  EXPECT_EQ(no_steal.total->iowait, 5u);
  EXPECT_FALSE(no_steal.total->steal);
}

TEST(HostProcStat, NoCpuLineOrGarbageGivesNothing) {
  EXPECT_FALSE(parse_proc_stat("").total);
  EXPECT_FALSE(parse_proc_stat("cpu  x y z w\n").total);
  EXPECT_TRUE(parse_proc_stat("cpux 1 2 3 4\n").cores.empty());
}

}  // namespace proc_stat_test
}  // namespace gpuwatch::host_signals
