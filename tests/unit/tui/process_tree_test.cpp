#include "tui/process_tree.hpp"

#include <gtest/gtest.h>

#include "tui/host_poller.hpp"
#include "tui/process_table.hpp"

namespace gpuwatch::tui {
namespace process_tree_test {  // this test file's helpers (unity builds: no clash with another file's)

ProcessView gpu_process(std::uint32_t pid, unsigned gpu, std::optional<std::uint32_t> ppid, std::string command) {
  ProcessView v;
  v.pid = pid;
  v.gpu = gpu;
  v.ppid = ppid;
  v.command = std::move(command);
  return v;
}

HostProcess host_process(std::optional<std::uint32_t> ppid, std::string command) {
  HostProcess h;
  h.ppid = ppid;
  h.info.command_line = std::move(command);
  return h;
}

struct Row {
  std::uint32_t pid;
  int depth;
  bool host_only;
  bool operator==(const Row&) const = default;
};

std::vector<Row> rows(const std::vector<ProcessView>& v) {
  std::vector<Row> out;
  for (const auto& p : v) out.push_back({p.pid, p.depth, p.host_only});
  return out;
}

TEST(ProcessTree, WorkersSitUnderTheirLauncherAndItsShell) {
  // torchrun (100, no GPU) started 4 workers; a shell (50) started torchrun; an unrelated
  // eval server (300) was started by another shell (60) whose parent is PID 1.
  std::vector<ProcessView> visible = {gpu_process(103, 3, 100, "python train.py --rank 3"),
                                      gpu_process(300, 6, 60, "python eval_server.py"),
                                      gpu_process(101, 1, 100, "python train.py --rank 1"),
                                      gpu_process(102, 2, 100, "python train.py --rank 2")};
  std::map<std::uint32_t, HostProcess> ancestors = {{100, host_process(50, "torchrun --nproc-per-node 4 train.py")},
                                                    {50, host_process(1, "-bash")},
                                                    {60, host_process(1, "bash")}};
  auto tree = process_tree(visible, ancestors);
  // Roots in the order of their first GPU row (103 was first), children likewise.
  std::vector<Row> expected = {{50, 0, true}, {100, 1, true}, {103, 2, false}, {101, 2, false}, {102, 2, false},
                               {60, 0, true}, {300, 1, false}};
  EXPECT_EQ(rows(tree), expected);
  EXPECT_EQ(process_cell(tree[1], Column::Command), "└─ torchrun --nproc-per-node 4 train.py");
  EXPECT_EQ(process_cell(tree[2], Column::Command), "  └─ python train.py --rank 3");
  EXPECT_EQ(process_cell(tree[0], Column::GpuMemory), "");  // a host process has no GPU cells
  EXPECT_EQ(process_cell(tree[0], Column::Gpu), "");
}

TEST(ProcessTree, AGpuProcessUnderAnotherAndOneOnTwoGpus) {
  std::vector<ProcessView> visible = {gpu_process(200, 0, 1, "python serve.py"), gpu_process(201, 0, 200, "worker"),
                                      gpu_process(201, 1, 200, "worker")};
  auto tree = process_tree(visible, {});
  std::vector<Row> expected = {{200, 0, false}, {201, 1, false}, {201, 1, false}};
  EXPECT_EQ(rows(tree), expected);
  EXPECT_EQ(tree[2].gpu, 1u);
}

TEST(ProcessTree, UnknownParentsAndRemoteRowsStayFlat) {
  auto remote = gpu_process(7, 0, std::nullopt, "remote");
  remote.host = "gpu2:9835";
  std::vector<ProcessView> visible = {remote, gpu_process(10, 0, std::nullopt, "a"), gpu_process(11, 1, 999, "b")};
  auto tree = process_tree(visible, {});  // 999 was not read: no row for it
  std::vector<Row> expected = {{10, 0, false}, {11, 0, false}, {7, 0, false}};
  EXPECT_EQ(rows(tree), expected);
}

TEST(ProcessTree, AtMostSoManyHostLevelsAndNeverPid1) {
  std::vector<ProcessView> visible = {gpu_process(1000, 0, 900, "train")};
  std::map<std::uint32_t, HostProcess> ancestors;
  for (std::uint32_t pid = 900; pid > 900 - 10; --pid) ancestors[pid] = host_process(pid - 1, "level");
  auto tree = process_tree(visible, ancestors);
  ASSERT_EQ(tree.size(), static_cast<std::size_t>(kMaxTreeAncestors + 1));
  EXPECT_EQ(tree.back().pid, 1000u);
  EXPECT_EQ(tree.back().depth, kMaxTreeAncestors);
}

TEST(ProcessTree, ContradictoryParentsDoNotLoseRows) {
  // A reused PID can make two processes each other's parent: both still show.
  std::vector<ProcessView> visible = {gpu_process(5, 0, 6, "a"), gpu_process(6, 1, 5, "b")};
  auto tree = process_tree(visible, {});
  EXPECT_EQ(tree.size(), 2u);
}

TEST(HostPoller, ParentPidOfAStatLine) {
  EXPECT_EQ(parent_pid_of("4121 (python) S 4100 4121 4100 0 -1"), 4100u);
  EXPECT_EQ(parent_pid_of("4121 (a) b) S 7 4121"), 7u);  // ')' inside the command
  EXPECT_FALSE(parent_pid_of("4121 (python"));
  EXPECT_FALSE(parent_pid_of("4121 (python) S x"));
}

TEST(ProcessTable, OwnerColumnSortsAndFilters) {
  std::vector<ProcessView> v = {gpu_process(1, 0, std::nullopt, "a"), gpu_process(2, 0, std::nullopt, "b"),
                                gpu_process(3, 0, std::nullopt, "c")};
  v[0].owner = "pod ml/trainer-0";
  v[2].owner = "job 4242.0";
  sort_processes(v, Column::Owner, false);
  EXPECT_EQ(v[0].pid, 3u);
  EXPECT_EQ(v[2].pid, 2u);  // unknown owner last
  EXPECT_EQ(process_cell(v[2], Column::Owner), "-");
  ProcessFilter filter;
  ASSERT_FALSE(filter.set("trainer"));
  EXPECT_TRUE(filter.matches(v[1]));
  EXPECT_FALSE(filter.matches(v[0]));
  EXPECT_EQ(column_from_key("owner"), Column::Owner);
}

}  // namespace process_tree_test
}  // namespace gpuwatch::tui
