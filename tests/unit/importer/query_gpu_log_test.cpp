// nvidia-smi --query-gpu CSV logs (importer/query_gpu_log.hpp).
#include "importer/query_gpu_log.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpuwatch::importer {
namespace query_gpu_log_test {

struct Parsed {
  std::vector<ImportedRow> rows;
  std::optional<ParseProblem> problem;
  std::vector<std::string> notes;
  std::map<std::string, std::size_t> skipped;
};

Parsed parse(const std::string& text, ParseOptions options = {}) {
  QueryGpuLogParser parser(std::move(options));
  Parsed out;
  std::istringstream in(text);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    out.problem = parser.parse_line(line, ++n, true, out.rows);
    if (out.problem) break;
  }
  out.notes = parser.notes();
  out.skipped = parser.skipped();
  return out;
}

std::optional<double> value_of(const ImportedRow& row, core::FieldId id) {
  for (const auto& v : row.values)
    if (v.field == id) {
      if (const auto* d = std::get_if<double>(&v.value)) return *d;
      if (const auto* u = std::get_if<std::uint64_t>(&v.value)) return static_cast<double>(*u);
      if (const auto* i = std::get_if<std::int64_t>(&v.value)) return static_cast<double>(*i);
    }
  return std::nullopt;
}

TEST(QueryGpuLog, HeaderWithUnitsAndBracketedErrors) {
  auto p = parse("timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
                 "2025/06/13 00:27:52.195, 0, Tesla V100S-PCIE-32GB, 45 %, 1024 MiB, [N/A]\n"
                 "2025/06/13 00:27:52.196, 1, Tesla V100S-PCIE-32GB, [Not Supported], 2 MiB, 72.10 W\n");
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].time_ms, 1749774472195);
  EXPECT_EQ(p.rows[0].name, "Tesla V100S-PCIE-32GB");
  EXPECT_EQ(value_of(p.rows[0], core::FieldId::UtilizationGpu), 0.45);
  EXPECT_FALSE(value_of(p.rows[0], core::FieldId::PowerDraw));  // [N/A]: absent, not 0
  EXPECT_EQ(p.rows[1].gpu, 1u);
  EXPECT_FALSE(value_of(p.rows[1], core::FieldId::UtilizationGpu));
  EXPECT_EQ(value_of(p.rows[1], core::FieldId::PowerDraw), 72.10);
}

TEST(QueryGpuLog, NoheaderNeedsColumns) {
  const std::string log = "2026/04/25 16:06:06.780, 3 %, 2 MiB\n2026/04/25 16:06:11.788, 0 %, 4 MiB\n";
  auto refused = parse(log);
  ASSERT_TRUE(refused.problem);
  EXPECT_EQ(refused.problem->line, 1u);
  EXPECT_NE(refused.problem->message.find("--columns"), std::string::npos);
  ParseOptions options;
  options.columns = {"timestamp", "utilization.gpu", "memory.used"};
  auto p = parse(log, options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(value_of(p.rows[0], core::FieldId::UtilizationGpu), 0.03);
  EXPECT_EQ(value_of(p.rows[1], core::FieldId::MemoryUsed), 4.0 * 1048576);
}

TEST(QueryGpuLog, GpusWithoutIndexAreToldApartByPositionAndSaySo) {
  ParseOptions options;
  options.columns = {"timestamp", "utilization.gpu", "memory.used"};
  auto p = parse("2025/09/08 14:14:37.120, 0, 11409\n2025/09/08 14:14:37.121, 0, 10851\n"
                 "2025/09/08 14:14:38.123, 0, 11409\n2025/09/08 14:14:38.124, 0, 10851\n", options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0].gpu, 0u);
  EXPECT_EQ(p.rows[1].gpu, 1u);
  EXPECT_EQ(p.rows[2].gpu, 0u);
  EXPECT_EQ(p.rows[3].gpu, 1u);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("position"), std::string::npos);
}

TEST(QueryGpuLog, TheCronFormJoinsGpusWithBars) {
  ParseOptions options;
  options.columns = {"utilization.gpu", "memory.used"};
  auto p = parse("2024-01-01 10:00:00, 45, 1024|30, 2048\n2024-01-01 10:01:00, 0, 1024|90, 4096\n", options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[1].gpu, 1u);
  EXPECT_EQ(p.rows[1].time_ms, p.rows[0].time_ms);
  EXPECT_EQ(value_of(p.rows[3], core::FieldId::UtilizationGpu), 0.90);
  EXPECT_EQ(p.rows[2].time_ms - p.rows[0].time_ms, 60000);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("position in each '|'-joined line"), std::string::npos);
}

TEST(QueryGpuLog, ABadCellNamesItsLineAndColumn) {
  auto p = parse("timestamp, index, utilization.gpu [%]\n2025/06/13 00:27:52.195, 0, 45 %\n2025/06/13 00:27:53.195, 0, lots\n");
  ASSERT_TRUE(p.problem);
  EXPECT_EQ(p.problem->line, 3u);
  EXPECT_EQ(p.problem->column, 29u);
  EXPECT_NE(p.problem->message.find("utilization.gpu"), std::string::npos);
  auto short_row = parse("timestamp, index, utilization.gpu [%]\n2025/06/13 00:27:52.195, 0\n");
  ASSERT_TRUE(short_row.problem);
  EXPECT_EQ(short_row.problem->line, 2u);
}

TEST(QueryGpuLog, AGpuIsLostAndNvidiaSmiErrorLinesAreSkipped) {
  QueryGpuLogParser parser({});
  std::vector<ImportedRow> rows;
  std::size_t n = 0;
  for (const char* line : {"timestamp, index, utilization.gpu [%], power.draw [W]",
                           "2025/06/13 00:00:00.000, 0, 45 %, 72.10 W", "2025/06/13 00:00:00.000, 1, 40 %, 70.00 W",
                           "2025/06/13 00:00:01.000, 0, [GPU is lost], [GPU is lost]",
                           "Unable to determine the device handle for GPU0000:04:00.0: Unknown Error",
                           "2025/06/13 00:00:01.000, 1, 41 %, 71.00 W"}) {
    auto problem = parser.parse_line(line, ++n, true, rows);
    ASSERT_FALSE(problem) << problem->message;
  }
  EXPECT_EQ(rows.size(), 3u);
  auto lost = parser.finish();
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].gpu, 0u);
  EXPECT_EQ(lost[0].time_ms, 1749772801000);
  EXPECT_EQ(parser.skipped().at("GPU is lost"), 1u);
  EXPECT_EQ(parser.skipped().at("nvidia-smi error line (Unable to determine the device handle)"), 1u);
}

TEST(QueryGpuLog, WithoutTimesNeedsStart) {
  auto refused = parse("index, utilization.gpu [%]\n0, 45 %\n");
  ASSERT_TRUE(refused.problem);
  EXPECT_NE(refused.problem->message.find("--start"), std::string::npos);
  ParseOptions options;
  options.start_ms = 1000000;
  options.interval_ms = 500;
  auto p = parse("index, utilization.gpu [%]\n0, 45 %\n1, 5 %\n0, 40 %\n1, 6 %\n", options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[1].time_ms, 1000000);
  EXPECT_EQ(p.rows[2].time_ms, 1000500);
}

}  // namespace query_gpu_log_test
}  // namespace gpuwatch::importer
