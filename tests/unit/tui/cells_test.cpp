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

TEST_F(Cells, BoxDrawingBlocksAndBrailleTakeOneCellEach) {
  std::vector<Cell> cells;
  // The first and last of each range, then a broken three-byte sequence (a '?' per byte, then the 'x').
  line_cells(line({{"\u2500\u25FC\u2800\u28FF", Tone::Dim}, {"\xE2\x96x", Tone::Ok}}), 8, cells);
  EXPECT_EQ(chars(cells), U"\u2500\u25FC\u2800\u28FF??x ");
  EXPECT_EQ(cells[3].tone, Tone::Dim);
  EXPECT_EQ(cells[4].tone, Tone::Ok);
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

}  // namespace
}  // namespace gpuwatch::tui
