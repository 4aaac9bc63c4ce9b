#include "tui/cell_writer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch::tui {
namespace cell_writer_test {  // this test file's helpers (unity builds: no clash with another file's)

// Tones as short readable markers instead of SGR sequences, so the expected bytes read plainly.
TerminalCodes codes() {
  TerminalCodes c;
  for (int t = 0; t < kToneCount; ++t) c.tone[static_cast<std::size_t>(t)] = "<" + std::to_string(t) + ">";
  c.reset = "<r>";
  return c;
}

std::vector<Cell> row(std::u32string_view text, Tone tone = Tone::Normal) {
  std::vector<Cell> out;
  for (char32_t ch : text) out.push_back(Cell{ch == U'_' ? char32_t{0} : ch, tone});  // '_': right half
  return out;
}

std::string write(const std::vector<Cell>* before, const std::vector<Cell>& after, int y = 0, bool last_row = false,
                  const TerminalCodes& c = codes(), std::optional<Tone> tone = Tone::Normal) {
  std::string out;
  write_row_changes(before, after, y, last_row, c, tone, out);
  return out;
}

TEST(CellWriter, AnUnchangedRowWritesNothing) {
  const auto a = row(U"hello world");
  EXPECT_EQ(write(&a, a), "");
}

TEST(CellWriter, OnlyTheChangedRunIsWrittenAfterACursorMove) {
  const auto before = row(U"GPU  42% MEM  10%          ");
  const auto after = row(U"GPU  57% MEM  10%          ");
  // Row 3, column 6 (1-based in the escape sequence).
  EXPECT_EQ(write(&before, after, 2), "\x1b[3;6H57");
}

TEST(CellWriter, RunsFarApartAreTwoMovesAndCloseOnesOneRun) {
  const auto before = row(U"a...................b..c");
  const auto after = row(U"A...................B..C");
  EXPECT_EQ(write(&before, after), "\x1b[1;1HA\x1b[1;21HB..C");
}

TEST(CellWriter, AToneChangeWritesItsSequenceOnceUntilTheToneChangesAgain) {
  auto before = row(U"abcd");
  auto after = row(U"wxyz");
  after[1].tone = after[2].tone = Tone::Critical;
  const std::string critical = "<" + std::to_string(static_cast<int>(Tone::Critical)) + ">";
  EXPECT_EQ(write(&before, after), "\x1b[1;1Hw" + critical + "xy<0>z");
  // From an unknown state the first cell sets its tone too.
  EXPECT_EQ(write(&before, after, 0, false, codes(), std::nullopt), "\x1b[1;1H<0>w" + critical + "xy<0>z");
}

TEST(CellWriter, AWholeRowWithoutBeforeIsWrittenInUtf8) {
  const auto after = row(U"█°⣿ ");
  EXPECT_EQ(write(nullptr, after, 4), "\x1b[5;1H\xE2\x96\x88\xC2\xB0\xE2\xA3\xBF ");
}

TEST(CellWriter, ARunNeverStartsOnTheRightHalfOfAWideCharacter) {
  // "中" takes columns 2-3; only column 3 (its right half in BEFORE) differs from a narrow 'x'.
  const auto before = row(U"ab中_cd");
  const auto after = row(U"ab中xcd");
  // Writing from column 3 alone would leave half a wide character; the run starts at column 2 (1-based 3).
  EXPECT_EQ(write(&before, after), "\x1b[1;3H\xE4\xB8\xADx");
}

TEST(CellWriter, ARunNeverEndsInsideAWideCharacterInEitherRow) {
  // The right half of one wide character (before) and the left of another (after) meet.
  const auto before = row(U"ab中_ ");
  const auto after = row(U"a中_x ");
  EXPECT_EQ(write(&before, after), "\x1b[1;2H\xE4\xB8\xAD\x1b[1;4Hx");
  // Only the text after a wide character changed: the run starts after it.
  EXPECT_EQ(write(&after, row(U"a中_y ")), "\x1b[1;4Hy");
}

TEST(CellWriter, TheCursorIsPlacedAgainAfterAWideCharacter) {
  const auto before = row(U"aaaaaa");
  const auto after = row(U"b中_bb");
  // After the wide character, column 4 (1-based) is addressed again: a terminal counting it as
  // one column would otherwise shift the rest of the run.
  EXPECT_EQ(write(&before, after), "\x1b[1;1Hb\xE4\xB8\xAD\x1b[1;4Hbb");
}

TEST(CellWriter, TheBottomRightCellIsLeftOutWithAutoMarginsThatScroll) {
  auto c = codes();
  c.skip_last_cell = true;
  const auto before = row(U"abc");
  const auto after = row(U"xyz");
  EXPECT_EQ(write(&before, after, 9, true, c), "\x1b[10;1Hxy");
  EXPECT_EQ(write(&before, after, 9, false, c), "\x1b[10;1Hxyz");  // not the last row: all of it
  c.skip_last_cell = false;
  EXPECT_EQ(write(&before, after, 9, true, c), "\x1b[10;1Hxyz");
  // A wide character whose right half is that cell becomes a blank.
  c.skip_last_cell = true;
  EXPECT_EQ(write(nullptr, row(U"a中_"), 0, true, c), "\x1b[1;1Ha ");
}

TEST(CellWriter, ATerminfoCursorMoveIsUsedWhenTheTerminalIsNotEcma48) {
  auto c = codes();
  c.cursor = [](int y, int x) { return "<cup " + std::to_string(y) + "," + std::to_string(x) + ">"; };
  const auto before = row(U"abc");
  const auto after = row(U"abX");
  EXPECT_EQ(write(&before, after, 7, false, c), "<cup 7,2>X");
}

TEST(CellWriter, ARowOfAnotherWidthIsWrittenWhole) {
  const auto before = row(U"ab");
  const auto after = row(U"abc");
  EXPECT_EQ(write(&before, after), "\x1b[1;1Habc");
}

TEST(CellWriter, CodePointsOfEveryUtf8Length) {
  std::string out;
  for (char32_t cp : {U'A', U'\u00e9', U'\u2588', U'\U0001F600'}) append_utf8(cp, out);
  EXPECT_EQ(out, "A\xC3\xA9\xE2\x96\x88\xF0\x9F\x98\x80");
}

}  // namespace cell_writer_test
}  // namespace gpuwatch::tui
