#include "tui/process_table.hpp"

#include <gtest/gtest.h>

#include "tui_fixture.hpp"

namespace gpuwatch::tui {
namespace {

std::vector<std::uint32_t> pids(const std::vector<ProcessView>& v) {
  std::vector<std::uint32_t> out;
  for (const auto& p : v) out.push_back(p.pid);
  return out;
}

TEST(ProcessTable, SortsByAnyColumnEitherWay) {
  auto m = test::demo_model(8);
  auto v = m.processes;
  sort_processes(v, Column::GpuMemory, true);
  EXPECT_EQ(v.front().pid, 14735u);  // the leaking eval server uses the most
  sort_processes(v, Column::Pid, false);
  EXPECT_EQ(v.front().pid, 14729u);
  sort_processes(v, Column::Pid, true);
  EXPECT_EQ(v.front().pid, 14736u);
  sort_processes(v, Column::User, false);
  EXPECT_EQ(v.back().user, "bob");
  sort_processes(v, Column::CpuPercent, true);
  EXPECT_EQ(v.front().pid, 14736u);
  sort_processes(v, Column::Command, false);
  EXPECT_EQ(v.front().command, "python eval_server.py --port 8500");
}

TEST(ProcessTable, AbsentValuesSortLastInBothDirections) {
  auto m = test::demo_model(3);
  m.processes[1].gpu_ratio.reset();
  for (bool descending : {true, false}) {
    auto v = m.processes;
    sort_processes(v, Column::GpuPercent, descending);
    EXPECT_EQ(v.back().pid, m.processes[1].pid) << descending;
  }
}

TEST(ProcessTable, CellsSayNaForAbsentNeverZero) {
  ProcessView p;
  p.pid = 42;
  EXPECT_EQ(process_cell(p, Column::GpuPercent), "N/A");
  EXPECT_EQ(process_cell(p, Column::GpuMemory), "N/A");
  EXPECT_EQ(process_cell(p, Column::CpuPercent), "N/A");
  EXPECT_EQ(process_cell(p, Column::User), "N/A");
  EXPECT_EQ(process_cell(p, Column::Pid), "42");
  p.gpu_instance_id = 2;
  p.gpu = 1;
  EXPECT_EQ(process_cell(p, Column::Gpu), "1/2");
  p.cpu_ratio = 1.5;
  EXPECT_EQ(process_cell(p, Column::CpuPercent), "150.0");
}

TEST(ProcessTable, RegexFilterMatchesPidUserAndCommandCaseInsensitively) {
  auto m = test::demo_model(8);
  ProcessFilter f;
  EXPECT_FALSE(f.set("EVAL_server").has_value());
  auto v = visible_processes(m.processes, std::nullopt, f, Column::Pid, false);
  EXPECT_EQ(pids(v), std::vector<std::uint32_t>{14735});
  EXPECT_FALSE(f.set("^1473[01] ").has_value());
  v = visible_processes(m.processes, std::nullopt, f, Column::Pid, false);
  EXPECT_EQ(pids(v), (std::vector<std::uint32_t>{14730, 14731}));
  EXPECT_FALSE(f.set("bob").has_value());
  EXPECT_EQ(visible_processes(m.processes, std::nullopt, f, Column::Pid, false).size(), 1u);
}

TEST(ProcessTable, BadRegexIsRefusedAndTheOldFilterKept) {
  ProcessFilter f;
  ASSERT_FALSE(f.set("train").has_value());
  auto error = f.set("train(");
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("train("), std::string::npos);
  EXPECT_EQ(f.pattern(), "train");
  EXPECT_FALSE(f.set("").has_value());
  EXPECT_FALSE(f.active());
}

TEST(ProcessTable, GpuSelectionShowsThatGpusProcessesOnly) {
  auto m = test::demo_model(8);
  ProcessFilter none;
  auto v = visible_processes(m.processes, GpuKey{"", 3}, none, Column::Pid, false);
  EXPECT_EQ(pids(v), std::vector<std::uint32_t>{14732});
  EXPECT_TRUE(visible_processes(m.processes, GpuKey{"other", 3}, none, Column::Pid, false).empty());
}

TEST(ProcessTable, ColumnKeysRoundTripAndCyclingSkipsHostOnOneHost) {
  for (const auto& c : process_columns()) EXPECT_EQ(column_from_key(c.key), c.column);
  EXPECT_FALSE(column_from_key("nope").has_value());
  EXPECT_EQ(next_column(Column::Command, false), Column::Pid);
  EXPECT_EQ(next_column(Column::Command, true), Column::Host);
  EXPECT_EQ(next_column(Column::Pid, false, -1), Column::Command);
  Column c = Column::Pid;
  for (std::size_t i = 0; i + 1 < process_columns().size(); ++i) c = next_column(c, false);
  EXPECT_EQ(c, Column::Pid);  // every column but Host, then round
}

}  // namespace
}  // namespace gpuwatch::tui
