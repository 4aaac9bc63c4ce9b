// `dcgmi dmon` output (importer/dcgm_dmon_log.hpp).
#include "importer/dcgm_dmon_log.hpp"

#include <gtest/gtest.h>

#include <variant>

namespace gpuwatch::importer {
namespace dcgm_dmon_log_test {

struct Parsed {
  std::vector<ImportedRow> rows;
  std::optional<ParseProblem> problem;
  std::map<std::string, std::size_t> skipped;
  std::vector<std::string> notes;
};

Parsed parse(const std::string& text, ParseOptions options) {
  DcgmDmonLogParser parser(std::move(options));
  Parsed out;
  std::size_t start = 0, n = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const bool complete = end != std::string::npos;
    out.problem = parser.parse_line(std::string_view(text).substr(start, complete ? end - start : std::string::npos), ++n,
                                    complete, out.rows);
    if (out.problem) return out;
    if (!complete) break;
    start = end + 1;
  }
  out.skipped = parser.skipped();
  out.notes = parser.notes();
  return out;
}

std::optional<double> number(const ImportedRow& row, core::FieldId field) {
  for (const auto& v : row.values) {
    if (v.field != field) continue;
    if (const auto* d = std::get_if<double>(&v.value)) return *d;
    if (const auto* u = std::get_if<std::uint64_t>(&v.value)) return static_cast<double>(*u);
    if (const auto* i = std::get_if<std::int64_t>(&v.value)) return static_cast<double>(*i);
  }
  return std::nullopt;
}

// As dcgmi prints `dcgmi dmon -e 203,204,252,155,1002`: SMACT (1002) is not mapped.
const char* kHeader =
    "#Entity           GPUTL          MCUTL          FBUSD          POWER          SMACT\n"
    "ID                                                             W\n";

TEST(DcgmDmonLog, MapsTheCheckedFieldsAndKeepsNaAbsent) {
  ParseOptions options;
  options.start_ms = 1000000;
  const std::string log = std::string(kHeader) +
                          "GPU 0             45             12             1024           250.500        0.400\n"
                          "GPU 1             N/A            0              2048           N/A            N/A\n"
                          "GPU-I 1           3              0              100            N/A            N/A\n" +
                          kHeader +
                          "GPU 0             90             30             1030           300.000        0.800\n"
                          "GPU 1             5              1              2048           70.250         0.010\n";
  const Parsed p = parse(log, options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0].gpu, 0u);
  EXPECT_EQ(p.rows[0].time_ms, 1000000);
  EXPECT_DOUBLE_EQ(*number(p.rows[0], core::FieldId::UtilizationGpu), 0.45);
  EXPECT_DOUBLE_EQ(*number(p.rows[0], core::FieldId::UtilizationMemory), 0.12);
  EXPECT_DOUBLE_EQ(*number(p.rows[0], core::FieldId::MemoryUsed), 1024.0 * 1048576);
  EXPECT_DOUBLE_EQ(*number(p.rows[0], core::FieldId::PowerDraw), 250.5);
  // N/A is absent, never 0.
  EXPECT_EQ(p.rows[1].gpu, 1u);
  EXPECT_FALSE(number(p.rows[1], core::FieldId::UtilizationGpu));
  EXPECT_FALSE(number(p.rows[1], core::FieldId::PowerDraw));
  EXPECT_DOUBLE_EQ(*number(p.rows[1], core::FieldId::UtilizationMemory), 0.0);
  // The next sample: GPU 0 again, one interval later.
  EXPECT_EQ(p.rows[2].gpu, 0u);
  EXPECT_EQ(p.rows[2].time_ms, 1001000);
  EXPECT_EQ(p.rows[3].time_ms, 1001000);
  EXPECT_DOUBLE_EQ(*number(p.rows[3], core::FieldId::PowerDraw), 70.25);
  EXPECT_EQ(p.skipped.at("not a GPU entity (GPU-I, GPU-CI, link, switch, CPU)"), 1u);
  EXPECT_EQ(p.skipped.at("units line"), 2u);
  EXPECT_EQ(p.skipped.at("header line"), 1u);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("SMACT"), std::string::npos);
}

TEST(DcgmDmonLog, NeedsStartAndSaysWhereARowIsShort) {
  const std::string log = std::string(kHeader) + "GPU 0             45             12             1024           250.500        0.4\n";
  const Parsed no_start = parse(log, {});
  ASSERT_TRUE(no_start.problem);
  EXPECT_NE(no_start.problem->message.find("--start"), std::string::npos);

  ParseOptions options;
  options.start_ms = 0;
  const Parsed short_row = parse(std::string(kHeader) + "GPU 0   45   12\n", options);
  ASSERT_TRUE(short_row.problem);
  EXPECT_EQ(short_row.problem->line, 3u);
  EXPECT_NE(short_row.problem->message.find("2 values but the header has 5 columns"), std::string::npos);

  const Parsed bad = parse(std::string(kHeader) + "GPU 0   45   lots   1024   250.5   0.4\n", options);
  ASSERT_TRUE(bad.problem);
  EXPECT_EQ(bad.problem->column, 14u);
  EXPECT_NE(bad.problem->message.find("MCUTL"), std::string::npos);
}

TEST(DcgmDmonLog, IsDetectedFromItsHeader) {
  EXPECT_EQ(detect_log_format("#Entity   GPUTL  MCUTL"), LogFormat::DcgmDmon);
  EXPECT_EQ(detect_log_format("# gpu   pwr gtemp"), LogFormat::Dmon);
}

}  // namespace dcgm_dmon_log_test
}  // namespace gpuwatch::importer
