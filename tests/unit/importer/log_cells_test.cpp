// The cells of a log line (importer/log_cells.hpp): units, absent values, times.
#include "importer/log_cells.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::importer {
namespace log_cells_test {

double as_double(const CellValue& v) { return std::get<double>(*v.value); }

TEST(LogCells, SplitsCellsWithTheirColumns) {
  auto cells = split_cells("2025/06/13 00:27:52.195, 0,  45 %", ',');
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].text, "2025/06/13 00:27:52.195");
  EXPECT_EQ(cells[0].column, 1u);
  EXPECT_EQ(cells[1].text, "0");
  EXPECT_EQ(cells[1].column, 26u);
  EXPECT_EQ(cells[2].text, "45 %");
  EXPECT_EQ(cells[2].column, 30u);
  auto words = split_words("    0    27     -");
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[2].text, "-");
  EXPECT_EQ(words[2].column, 17u);
}

TEST(LogCells, ValuesWithAndWithoutUnitsInBaseUnits) {
  EXPECT_DOUBLE_EQ(as_double(parse_field_cell(core::FieldId::UtilizationGpu, "45 %")), 0.45);
  EXPECT_DOUBLE_EQ(as_double(parse_field_cell(core::FieldId::UtilizationGpu, "45")), 0.45);
  EXPECT_EQ(std::get<std::uint64_t>(*parse_field_cell(core::FieldId::MemoryUsed, "1024 MiB").value), 1024ull << 20);
  EXPECT_EQ(std::get<std::uint64_t>(*parse_field_cell(core::FieldId::MemoryUsed, "1024").value), 1024ull << 20);
  EXPECT_DOUBLE_EQ(as_double(parse_field_cell(core::FieldId::PowerDraw, "72.10 W")), 72.10);
  EXPECT_EQ(std::get<std::uint64_t>(*parse_field_cell(core::FieldId::ClocksCurrentSm, "1410 MHz").value), 1410000000ull);
  EXPECT_EQ(std::get<std::int64_t>(*parse_field_cell(core::FieldId::TemperatureGpu, "27").value), 27);
  EXPECT_EQ(std::get<std::int64_t>(*parse_field_cell(core::FieldId::Pstate, "P2").value), 2);
  EXPECT_EQ(std::get<std::uint64_t>(*parse_field_cell(core::FieldId::ClocksEventReasonsActive, "0x0000000000000004").value), 4u);
}

TEST(LogCells, BracketedErrorsAndDashesAreAbsentNeverZero) {
  for (const char* text : {"[N/A]", "[Not Supported]", "[Unknown Error]", "[GPU is lost]", "-", "N/A", ""}) {
    auto v = parse_field_cell(core::FieldId::PowerDraw, text);
    EXPECT_FALSE(v.value) << text;
    EXPECT_TRUE(v.problem.empty()) << text;
  }
}

TEST(LogCells, ProblemsSayWhatIsWrong) {
  EXPECT_NE(parse_field_cell(core::FieldId::PowerDraw, "lots").problem.find("not a number"), std::string::npos);
  EXPECT_NE(parse_field_cell(core::FieldId::MemoryUsed, "3 GiB").problem.find("unit 'GiB'"), std::string::npos);
  EXPECT_NE(parse_field_cell(core::FieldId::MemoryUsed, "-5").problem.find("negative"), std::string::npos);
}

TEST(LogCells, TimesAsLogsWriteThem) {
  const std::int64_t t = 1757340877120;  // 2025-09-08T14:14:37.120Z
  EXPECT_EQ(parse_log_time("2025/09/08 14:14:37.120", 0), t);
  EXPECT_EQ(parse_log_time("2025-09-08 14:14:37.120", 0), t);
  EXPECT_EQ(parse_log_time("2025-09-08T14:14:37.120Z", 120), t);
  EXPECT_EQ(parse_log_time("2025-09-08T16:14:37.120+02:00", 0), t);
  EXPECT_EQ(parse_log_time("2025/09/08 16:14:37.120", 120), t);  // the log's zone from --utc-offset
  EXPECT_EQ(parse_log_time("20250908 14:14:37", 0), t - 120);    // dmon -o DT
  EXPECT_EQ(parse_log_time("1757340877.12", 0), t);
  EXPECT_FALSE(parse_log_time("0 %", 0));
  EXPECT_FALSE(parse_log_time("2025/13/08 14:14:37", 0));
  EXPECT_EQ(format_utc_ms(t), "2025-09-08T14:14:37.120Z");
  EXPECT_EQ(parse_utc_offset("-05:30"), -330);
  EXPECT_FALSE(parse_utc_offset("5"));
}

}  // namespace log_cells_test
}  // namespace gpuwatch::importer
