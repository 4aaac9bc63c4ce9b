#include "terminal/text_table.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

TEST(TextTable, PadsToTheWidestCellAndRightAlignsNumbers) {
  EXPECT_EQ(text_table({{"gpu", "util"}, {"0", "100 %"}, {"12", "5 %"}}, 1),
            "gpu   util\n"
            "0    100 %\n"
            "12     5 %\n");
}

TEST(TextTable, AllLeftAlignedByDefaultWithoutTrailingSpaces) {
  EXPECT_EQ(text_table({{"kind", "summary"}, {"memory_leak", "x"}}), "kind         summary\nmemory_leak  x\n");
}

TEST(TextTable, ATextColumnLastIsLeftAlignedAgain) {
  EXPECT_EQ(text_table({{"gpu", "util", "command"}, {"0", "100 %", "python train.py"}, {"12", "5 %", "bash"}}, 1, 2),
            "gpu   util  command\n"
            "0    100 %  python train.py\n"
            "12     5 %  bash\n");
}

}  // namespace
}  // namespace gpuwatch::terminal

namespace gpuwatch::terminal {
namespace text_table_encoding_test {  // issue 31

TEST(TextTable, CellsShowControlsVisiblyAndNeverBreakTheRow) {
  const std::string table = text_table({{"pid", "command"}, {"12", "python \x1b]52;c;aGVsbG8=\x07\nFORGED\xff"}});
  EXPECT_EQ(table, "pid  command\n12   python \\x1b]52;c;aGVsbG8=\\x07\\nFORGED\\xff\n");
}

TEST(TextTable, CsvCellsHoldNoRawControlByte) {
  EXPECT_EQ(csv_cell("a\r\nb,\"c\"\x1b"), "\"a\\r\\nb,\"\"c\"\"\\x1b\"");
  EXPECT_EQ(csv_cell("plain"), "plain");
}

}  // namespace text_table_encoding_test
}  // namespace gpuwatch::terminal

namespace gpuwatch::terminal {
namespace text_table_compact_test {  // TextTable: text_table's output, row by row, in pieces

TEST(TextTable, ALongTableComesInPiecesThatJoinToTextTablesOutput) {
  std::vector<std::vector<std::string>> rows = {{"time", "gpu", "command"}};
  for (int i = 0; i < 5000; ++i) rows.push_back({"2026-12-01T00:00:00", std::to_string(i % 13), i == 4999 ? "x\ty" : "bash"});
  TextTable table(1, 2);
  for (const auto& row : rows) table.add_row(row);
  EXPECT_EQ(table.rows(), rows.size());
  std::string joined;
  int pieces = 0;
  table.write([&](std::string_view piece) {
    joined += piece;
    ++pieces;
  });
  EXPECT_GT(pieces, 1);
  EXPECT_EQ(joined, text_table(rows, 1, 2));
  EXPECT_NE(joined.find("x\\ty\n"), std::string::npos);  // encoded as text_table does (issue 31)
  EXPECT_EQ(table.text(), joined);
}

}  // namespace text_table_compact_test
}  // namespace gpuwatch::terminal
