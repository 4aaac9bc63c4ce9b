// `gpustat --json` logs (importer/gpustat_log.hpp): objects over many lines, one after another.
#include "importer/gpustat_log.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpuwatch::importer {
namespace gpustat_log_test {

const char* kTwoQueries = R"({
    "hostname": "vm",
    "query_time": "2026-12-01T15:06:31.423349",
    "gpus": [
        {"index": 0, "uuid": "GPU-a", "name": "NVIDIA H100 80GB HBM3", "temperature.gpu": 65, "fan.speed": null,
         "utilization.gpu": 100, "utilization.enc": 0, "utilization.dec": 0, "power.draw": 581,
         "enforced.power.limit": 700, "memory.used": 62794, "memory.total": 81559,
         "processes": [{"username": "root", "command": "python {x}", "gpu_memory_usage": 62314, "pid": 25199}]}
    ]
}
{"hostname": "vm", "query_time": "2026-12-01T15:06:32.500", "gpus": [{"index": 0, "utilization.gpu": 40, "processes": []}]}
)";

TEST(GpustatLog, ObjectsOverManyLinesGiveRowsAndProcesses) {
  GpustatLogParser parser({});
  std::vector<ImportedRow> rows;
  std::istringstream in(kTwoQueries);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    auto problem = parser.parse_line(line, ++n, true, rows);
    ASSERT_FALSE(problem) << problem->message;
  }
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].time_ms, 1796137591423);
  EXPECT_EQ(rows[0].uuid, "GPU-a");
  EXPECT_EQ(rows[0].line, 1u);
  bool fan = false;
  for (const auto& v : rows[0].values) {
    fan = fan || v.field == core::FieldId::FanSpeed;  // null: absent
    if (v.field == core::FieldId::MemoryUsed) EXPECT_EQ(std::get<std::uint64_t>(v.value), 62794ull << 20);
    if (v.field == core::FieldId::UtilizationGpu) EXPECT_DOUBLE_EQ(std::get<double>(v.value), 1.0);
  }
  EXPECT_FALSE(fan);
  ASSERT_EQ(rows[0].processes.size(), 1u);
  EXPECT_EQ(rows[0].processes[0].pid, 25199u);
  EXPECT_EQ(rows[0].processes[0].used_memory_bytes, 62314ull << 20);
  EXPECT_EQ(rows[1].time_ms, 1796137592500);
  EXPECT_EQ(rows[1].line, 11u);
}

TEST(GpustatLog, ProblemsNameTheObjectsLine) {
  GpustatLogParser parser({});
  std::vector<ImportedRow> rows;
  auto problem = parser.parse_line(R"({"query_time": "yesterday", "gpus": []})", 4, true, rows);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->line, 4u);
  EXPECT_NE(problem->message.find("query_time"), std::string::npos);
  GpustatLogParser other({});
  auto garbage = other.parse_line("hello", 1, true, rows);
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->column, 1u);
}

}  // namespace gpustat_log_test
}  // namespace gpuwatch::importer
