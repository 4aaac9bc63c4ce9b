#include "history/render.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace gpuwatch::history {
namespace {

using core::FieldId;
using core::FieldReading;

core::Snapshot one_sample() {
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'000));
  core::DeviceSnapshot device;
  device.index = 0;
  device.get(FieldId::Index) = FieldReading::of(std::int64_t{0});
  device.get(FieldId::UtilizationGpu) = FieldReading::of(0.93);
  device.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{1024} * 1024 * 1024);
  device.get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::NotSupported);
  snapshot.devices.push_back(device);
  snapshot.device_count = 1;
  return snapshot;
}

TEST(HistoryRender, FieldsUseQueryNamesAndMustBeRecorded) {
  auto fields = parse_history_fields("index, utilization.gpu,memory.used,power.draw", HistoryFormat::Csv);
  ASSERT_TRUE(fields) << fields.error().message;
  EXPECT_EQ(fields->size(), 4U);
  EXPECT_EQ((*fields)[1], FieldId::UtilizationGpu);
  auto unknown = parse_history_fields("utilisation", HistoryFormat::Csv);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown field"), std::string::npos);
  auto not_recorded = parse_history_fields("vbios_version", HistoryFormat::Csv);
  ASSERT_FALSE(not_recorded);
  EXPECT_NE(not_recorded.error().message.find("memory.used"), std::string::npos);  // lists what is recorded
  EXPECT_FALSE(parse_history_format("xml"));
  EXPECT_TRUE(parse_history_fields("", HistoryFormat::Table));
}

TEST(HistoryRender, CsvHasHeaderTimeAndNa) {
  std::vector<FieldId> fields = {FieldId::Index, FieldId::UtilizationGpu, FieldId::MemoryUsed, FieldId::PowerDraw};
  std::string out = render_history({one_sample()}, fields, HistoryFormat::Csv);
  std::istringstream lines(out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header, "time, index, utilization.gpu [%], memory.used [MiB], power.draw [W]");
  EXPECT_NE(row.find("T"), std::string::npos);
  EXPECT_NE(row.find(", 0, 93 %, 1024 MiB, [N/A]"), std::string::npos) << row;
  EXPECT_EQ(render_history({}, fields, HistoryFormat::Csv), header + "\n");  // header even when empty
}

TEST(HistoryRender, JsonlHasNullForAbsentAndBaseUnits) {
  std::vector<FieldId> fields = {FieldId::UtilizationGpu, FieldId::MemoryUsed, FieldId::PowerDraw};
  std::string out = render_history({one_sample()}, fields, HistoryFormat::Jsonl);
  auto row = nlohmann::json::parse(out);
  EXPECT_TRUE(row["time"].is_string());
  EXPECT_DOUBLE_EQ(row["utilization_gpu_ratio"].get<double>(), 0.93);
  EXPECT_EQ(row["memory_used_bytes"].get<std::uint64_t>(), 1024ULL * 1024 * 1024);
  EXPECT_TRUE(row["power_draw_w"].is_null());
}

TEST(HistoryRender, TableIsAligned) {
  std::vector<FieldId> fields = {FieldId::Index, FieldId::UtilizationGpu, FieldId::PowerDraw};
  std::string out = render_history({one_sample(), one_sample()}, fields, HistoryFormat::Table);
  std::istringstream lines(out);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header.find("time"), 0U);
  EXPECT_EQ(header.size(), first.size());
  EXPECT_EQ(first, second);
  EXPECT_NE(first.find("N/A"), std::string::npos);
}

TEST(HistoryRender, ProcessSummaries) {
  store::ProcessSummary p;
  p.gpu_index = 1;
  p.pid = 4242;
  p.name = "python";
  p.user = "alice";
  p.max_used_memory_bytes = 61440ULL << 20;
  p.first_seen_ms = 1'700'000'000'000;
  p.last_seen_ms = 1'700'000'000'000 + 3'723'000;
  store::ProcessSummary unknown = p;
  unknown.pid = 7;
  unknown.user.reset();
  unknown.max_used_memory_bytes.reset();
  std::string table = render_process_summaries({p, unknown}, HistoryFormat::Table);
  EXPECT_NE(table.find("61440 MiB"), std::string::npos) << table;
  EXPECT_NE(table.find("1h02m03s"), std::string::npos) << table;
  EXPECT_NE(table.find("N/A"), std::string::npos) << table;
  std::string jsonl = render_process_summaries({p, unknown}, HistoryFormat::Jsonl);
  auto first = nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(first["pid"], 4242);
  EXPECT_EQ(first["user"], "alice");
  EXPECT_DOUBLE_EQ(first["seen_for_s"].get<double>(), 3723.0);
  auto second = nlohmann::json::parse(jsonl.substr(jsonl.find('\n') + 1));
  EXPECT_TRUE(second["max_used_memory_bytes"].is_null());
  EXPECT_TRUE(second["user"].is_null());
  std::string csv = render_process_summaries({p}, HistoryFormat::Csv);
  EXPECT_NE(csv.find(", 1, 4242, alice, python, 61440, 3723.000"), std::string::npos) << csv;
}

// The recorded command line (schema 11) tells two `python` processes apart: the table shows its
// start, CSV (quoted) and JSONL all of it; not recorded, the table shows the name and JSONL null.
TEST(HistoryRender, ProcessSummariesShowTheRecordedCommand) {
  store::ProcessSummary p;
  p.gpu_index = 6;
  p.pid = 4242;
  p.name = "python";
  p.command = "python eval_server.py --port 8500 --tag \"a, b\" " + std::string(200, 'x');
  store::ProcessSummary old = p;
  old.pid = 7;
  old.command.reset();
  const std::string table = render_process_summaries({p, old}, HistoryFormat::Table);
  const auto header = table.substr(0, table.find('\n'));
  EXPECT_EQ(header.substr(header.rfind(' ') + 1), "command") << table;
  EXPECT_NE(table.find("python eval_server.py --port 8500"), std::string::npos) << table;
  EXPECT_EQ(table.find(std::string(100, 'x')), std::string::npos) << table;  // the table shows its start
  const std::string last_row = table.substr(table.rfind('\n', table.size() - 2) + 1);
  EXPECT_EQ(last_row.substr(last_row.find_last_not_of(" \n") - 5, 6), "python") << table;  // the name, as before
  const std::string jsonl = render_process_summaries({p, old}, HistoryFormat::Jsonl);
  auto first = nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')));
  EXPECT_EQ(first["command"], *p.command);
  EXPECT_EQ(first["name"], "python");
  EXPECT_TRUE(nlohmann::json::parse(jsonl.substr(jsonl.find('\n') + 1))["command"].is_null());
  const std::string csv = render_process_summaries({p, old}, HistoryFormat::Csv);
  EXPECT_NE(csv.find(", \"python eval_server.py --port 8500 --tag \"\"a, b\"\" x"), std::string::npos) << csv;
  EXPECT_NE(csv.find(", [N/A]\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace gpuwatch::history

namespace gpuwatch::history {
namespace history_output_streaming_test {  // `history` streamed: a day of samples never in memory

core::Snapshot sample_at(std::int64_t ms, double utilization) {
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  core::DeviceSnapshot device;
  device.get(core::FieldId::Index) = core::FieldReading::of(std::int64_t{0});
  device.get(core::FieldId::UtilizationGpu) = core::FieldReading::of(utilization);
  snapshot.devices.push_back(device);
  return snapshot;
}

TEST(HistoryOutput, CsvAndJsonlLinesAreWrittenAsEachSnapshotComes) {
  const std::vector<core::FieldId> fields = {core::FieldId::Index, core::FieldId::UtilizationGpu};
  for (auto format : {HistoryFormat::Csv, HistoryFormat::Jsonl}) {
    std::string written;
    HistoryOutput output(fields, format, [&written](std::string_view piece) { written += piece; });
    output.add(sample_at(1'700'000'000'000, 0.5));
    EXPECT_NE(written.find("22:13:20"), std::string::npos) << "nothing written before finish: " << written;
    output.add(sample_at(1'700'000'001'000, 0.25));
    output.finish();
    EXPECT_EQ(output.snapshots(), 2U);
    EXPECT_EQ(written, render_history({sample_at(1'700'000'000'000, 0.5), sample_at(1'700'000'001'000, 0.25)}, fields, format));
  }
}

TEST(HistoryOutput, TheTableWaitsForItsWidestRowThenMatchesRenderHistory) {
  const std::vector<core::FieldId> fields = {core::FieldId::Index, core::FieldId::UtilizationGpu};
  const std::vector<core::Snapshot> samples = {sample_at(1'700'000'000'000, 0.05), sample_at(1'700'000'001'000, 1.0)};
  std::string written;
  HistoryOutput output(fields, HistoryFormat::Table, [&written](std::string_view piece) { written += piece; });
  for (const auto& sample : samples) output.add(sample);
  EXPECT_TRUE(written.empty());  // widths need every row
  output.finish();
  EXPECT_EQ(written, render_history(samples, fields, HistoryFormat::Table));
  EXPECT_NE(written.find("    5 %\n"), std::string::npos) << written;  // right-aligned to the column
}

}  // namespace history_output_streaming_test
}  // namespace gpuwatch::history
