#include "host_signals/process_tree_cpu.hpp"

#include <gtest/gtest.h>

#include "unit/host_signals/fake_host_files.hpp"

namespace gpuwatch::host_signals {
namespace process_tree_cpu_test {

using testing_support::FakeHostFiles;

// /proc/<pid>/stat with PPID and utime/stime; the command holds a space and a ')'.
std::string stat_line(unsigned pid, unsigned ppid, unsigned utime, unsigned stime) {
  return std::to_string(pid) + " (pt_main) thr) S " + std::to_string(ppid) +
         " 1 1 0 -1 4194560 100 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 4 0 123 0 0\n";
}

TEST(HostProcessStat, ReadsParentAndCpuTicksAfterTheLastParenthesis) {
  auto stat = parse_process_stat(stat_line(100, 1, 250, 50));
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->ppid, 1u);
  EXPECT_EQ(stat->cpu_ticks, 300u);
  EXPECT_FALSE(parse_process_stat("100 (x) S 1 2"));
  EXPECT_FALSE(parse_process_stat(""));
}

// A trainer (100) with two DataLoader workers (101, 102), one of which has a child (103);
// an unrelated process (200).
FakeHostFiles training_tree(bool children_files) {
  FakeHostFiles f;
  f.files["/proc/100/stat"] = stat_line(100, 1, 1000, 100);
  f.files["/proc/101/stat"] = stat_line(101, 100, 400, 10);
  f.files["/proc/102/stat"] = stat_line(102, 100, 300, 20);
  f.files["/proc/103/stat"] = stat_line(103, 101, 5, 5);
  f.files["/proc/200/stat"] = stat_line(200, 1, 9000, 9000);
  if (children_files) {
    f.files["/proc/100/task/100/children"] = "101 ";
    f.files["/proc/100/task/107/children"] = "102 ";  // a second thread started the second worker
    f.files["/proc/101/task/101/children"] = "103 ";
    f.files["/proc/102/task/102/children"] = "";
    f.files["/proc/103/task/103/children"] = "";
    f.files["/proc/200/task/200/children"] = "";
  }
  return f;
}

TEST(HostProcessTreeCpu, SumsTheTreeFromChildrenFiles) {
  const FakeHostFiles files = training_tree(true);
  auto tree = process_tree_cpu(files, {100});
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->processes, 4u);
  EXPECT_EQ(tree->cpu_ticks, 1100u + 410 + 320 + 10);
}

TEST(HostProcessTreeCpu, WithoutChildrenFilesScansParents) {
  const FakeHostFiles files = training_tree(false);
  auto tree = process_tree_cpu(files, {100});
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->processes, 4u);
  EXPECT_EQ(tree->cpu_ticks, 1840u);
}

TEST(HostProcessTreeCpu, SeveralRootsCountEachProcessOnceAndGoneRootsAreAbsent) {
  const FakeHostFiles files = training_tree(true);
  auto tree = process_tree_cpu(files, {100, 101, 200});
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->processes, 5u);
  EXPECT_EQ(tree->cpu_ticks, 1840u + 18000);
  EXPECT_FALSE(process_tree_cpu(files, {999}));
}

}  // namespace process_tree_cpu_test
}  // namespace gpuwatch::host_signals
