// nvidia-smi dmon and pmon logs (importer/monitor_log.hpp).
#include "importer/monitor_log.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpuwatch::importer {
namespace monitor_log_test {

struct Parsed {
  std::vector<ImportedRow> rows;
  std::optional<ParseProblem> problem;
  std::vector<LostGpu> lost;
  std::map<std::string, std::size_t> skipped;
};

// TEXT's last line is cut off (no newline) when it does not end with one.
Parsed parse(bool pmon, const std::string& text, ParseOptions options = {}) {
  MonitorLogParser parser(pmon, std::move(options));
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
  out.lost = parser.finish();
  out.skipped = parser.skipped();
  return out;
}

const char* kDmonHeader =
    "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk sbecc dbecc   pci rxpci txpci\n"
    "# Idx     W     C     C     %     %     %     %   MHz   MHz  errs  errs  errs  MB/s  MB/s\n";

TEST(MonitorLog, DmonWithStartAndALostGpu) {
  ParseOptions options;
  options.start_ms = 1000000;
  std::string log = std::string(kDmonHeader) +
                    "    0    27    23     -    10     0     0     0   324   324     0     0     0     -     -\n"
                    "    1    29    26     -    20     0     0     0   324   324     0     0     0     -     -\n" +
                    kDmonHeader +
                    "    0    84    46     -    97    52     0     0  2505   875     0     0     0     -     -\n"
                    "    1    85    46     -    99    51     0     0  2505   875     0     0     0     -     -\n"
                    "    0     -     -     -";  // the log ends there, cut off, as the K80s' after Xid 79
  auto p = parse(false, log, options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 4u);
  EXPECT_EQ(p.rows[0].time_ms, 1000000);
  EXPECT_EQ(p.rows[2].time_ms, 1001000);
  EXPECT_EQ(p.rows[3].gpu, 1u);
  bool sm_seen = false;
  for (const auto& v : p.rows[2].values) {
    if (v.field == core::FieldId::UtilizationGpu) {
      sm_seen = true;
      EXPECT_DOUBLE_EQ(std::get<double>(v.value), 0.97);
    }
    EXPECT_NE(v.field, core::FieldId::TemperatureMemory);  // "-": absent
  }
  EXPECT_TRUE(sm_seen);
  ASSERT_EQ(p.lost.size(), 1u);
  EXPECT_EQ(p.lost[0].gpu, 0u);
  EXPECT_EQ(p.lost[0].time_ms, 1002000);
  EXPECT_EQ(p.skipped.at("header line"), 3u);
}

TEST(MonitorLog, AGpuThatStopsReportingIsLost) {
  ParseOptions options;
  options.start_ms = 0;
  std::string log = "# gpu sm\n# Idx %\n 0 1\n 1 2\n 0 3\n 0 4\n 0 5\n";
  auto p = parse(false, log, options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.lost.size(), 1u);
  EXPECT_EQ(p.lost[0].gpu, 1u);
  EXPECT_EQ(p.lost[0].time_ms, 1000);  // the first sample it was missing from
}

TEST(MonitorLog, DatesFromDashODt) {
  auto p = parse(false, "#Date       Time        gpu    sm   mem\n#YYYYMMDD   HH:MM:SS    Idx     %     %\n"
                        " 20250908   14:14:37      0    45     -\n 20250908   14:14:38      0    46     3\n");
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].time_ms, 1757340877000);
  EXPECT_EQ(p.rows[1].time_ms, 1757340878000);
  EXPECT_EQ(p.rows[0].values.size(), 1u);
}

TEST(MonitorLog, WithoutDatesOrStartSaysWhatToGive) {
  auto p = parse(false, std::string(kDmonHeader) + "    0    27    23     -    10     0     0     0   324   324     0     0     0     -     -\n");
  ASSERT_TRUE(p.problem);
  EXPECT_EQ(p.problem->line, 3u);
  EXPECT_NE(p.problem->message.find("--start"), std::string::npos);
}

TEST(MonitorLog, ABadCellNamesItsLineAndColumn) {
  ParseOptions options;
  options.start_ms = 0;
  auto p = parse(false, "# gpu pwr sm\n    0   27  x9\n", options);
  ASSERT_TRUE(p.problem);
  EXPECT_EQ(p.problem->line, 2u);
  EXPECT_EQ(p.problem->column, 13u);
}

TEST(MonitorLog, PmonRowsAreProcesses) {
  ParseOptions options;
  options.start_ms = 0;
  auto p = parse(true,
                 "# gpu        pid  type    sm   mem   enc   dec    fb   command\n"
                 "# Idx          #   C/G     %     %     %     %    MB   name\n"
                 "    0      12345     C    45    12     -     -  1024   python train.py\n"
                 "    1          -     -     -     -     -     -     -   -\n"
                 "    0      12345     C    40    10     -     -  1024   python train.py\n",
                 options);
  ASSERT_FALSE(p.problem) << p.problem->message;
  ASSERT_EQ(p.rows.size(), 2u);
  ASSERT_EQ(p.rows[0].processes.size(), 1u);
  EXPECT_EQ(p.rows[0].processes[0].pid, 12345u);
  EXPECT_EQ(p.rows[0].processes[0].name, "python train.py");
  EXPECT_EQ(p.rows[0].processes[0].used_memory_bytes, 1024ull << 20);
  EXPECT_EQ(p.rows[1].time_ms, 1000);
  EXPECT_EQ(p.skipped.at("no process on the GPU"), 1u);
}

}  // namespace monitor_log_test
}  // namespace gpuwatch::importer
