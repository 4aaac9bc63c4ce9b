#include "tui/cells.hpp"

#include <gtest/gtest.h>

#include <clocale>
#include <string>

namespace gpuwatch::tui {
namespace {

Line line(std::initializer_list<Span> spans) { return Line{std::vector<Span>(spans)}; }

std::u32string chars(const std::vector<Cell>& cells) {
  std::u32string out;
  for (const auto& c : cells) out += c.ch == 0 ? U'_' : c.ch;
  return out;
}

class Cells : public ::testing::Test {
 protected:
  void SetUp() override { std::setlocale(LC_CTYPE, "C.UTF-8"); }
  void TearDown() override { std::setlocale(LC_CTYPE, "C"); }
};

TEST_F(Cells, ALineFillsItsWidthWithTheTonesOfItsSpans) {
  std::vector<Cell> cells;
  line_cells(line({{"ab", Tone::Title}, {"█°", Tone::BarUtil}}), 6, cells);
  EXPECT_EQ(chars(cells), U"ab█°  ");
  EXPECT_EQ(cells[1].tone, Tone::Title);
  EXPECT_EQ(cells[2].tone, Tone::BarUtil);
  EXPECT_EQ(cells[5].tone, Tone::Normal);  // blanks after the text
}

TEST_F(Cells, TextBeyondTheWidthIsCut) {
  std::vector<Cell> cells;
  line_cells(line({{"abcdef", Tone::Normal}}), 4, cells);
  EXPECT_EQ(chars(cells), U"abcd");
}

TEST_F(Cells, ControlCharactersAndBrokenUtf8NeverReachTheTerminal) {
  std::vector<Cell> cells;
  line_cells(line({{std::string("a\x1b[2Jb\t\xff\xc3", 9), Tone::Normal}}), 10, cells);
  EXPECT_EQ(chars(cells), U"a?[2Jb??? ");
}

TEST_F(Cells, AWideCharacterTakesTwoCellsAndIsCutWhole) {
  std::vector<Cell> cells;
  line_cells(line({{"a漢b", Tone::Normal}}), 5, cells);
  EXPECT_EQ(chars(cells), U"a漢_b ");
  line_cells(line({{"ab漢", Tone::Normal}}), 3, cells);
  EXPECT_EQ(chars(cells), U"ab ");  // would end past the last column
}

TEST_F(Cells, ChangedColumnsAreTheSpanBetweenTheFirstAndLastDifference) {
  std::vector<Cell> before, after;
  line_cells(line({{"GPU 99% MEM 60.9", Tone::Normal}}), 20, before);
  line_cells(line({{"GPU 98% MEM 61.0", Tone::Normal}}), 20, after);
  auto columns = changed_columns(before, after);
  ASSERT_TRUE(columns);
  EXPECT_EQ(*columns, (std::pair{5, 16}));
  EXPECT_FALSE(changed_columns(after, after));
  // A tone alone is a change too.
  line_cells(line({{"GPU 98% MEM 61.0", Tone::Warn}}), 20, before);
  EXPECT_EQ(*changed_columns(before, after), (std::pair{0, 16}));
  // Rows of another width: all of it.
  std::vector<Cell> narrow(10);
  EXPECT_EQ(*changed_columns(narrow, after), (std::pair{0, 20}));
}

TEST_F(Cells, ChangedColumnsNeverSplitAWideCharacter) {
  std::vector<Cell> before, after;
  line_cells(line({{"a漢b", Tone::Normal}}), 5, before);
  line_cells(line({{"a漢c", Tone::Normal}}), 5, after);
  EXPECT_EQ(*changed_columns(before, after), (std::pair{3, 4}));
  line_cells(line({{"a漢b", Tone::Normal}}), 5, before);
  line_cells(line({{"axyb", Tone::Normal}}), 5, after);
  EXPECT_EQ(*changed_columns(before, after), (std::pair{1, 3}));
  line_cells(line({{"ab漢", Tone::Normal}}), 5, before);
  line_cells(line({{"a漢x", Tone::Normal}}), 5, after);  // the right half of one, the left of another
  EXPECT_EQ(*changed_columns(before, after), (std::pair{1, 4}));
}

}  // namespace
}  // namespace gpuwatch::tui
