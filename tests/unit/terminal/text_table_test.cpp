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
