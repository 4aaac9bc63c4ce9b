// `gpuwatch history --findings` rendering (issue 10).
#include "history/findings_render.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::history {
namespace findings_render_test {  // this test file's helpers (unity builds: no clash with another file's)

diagnose::Finding finding(std::string kind, std::vector<unsigned> gpus, int start_s, std::string uuid = "GPU-a") {
  diagnose::Finding f;
  f.kind = std::move(kind);
  f.severity = diagnose::Severity::Warning;
  f.gpus = std::move(gpus);
  f.uuids = std::vector<std::string>(f.gpus.size(), uuid);
  f.start = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000 + start_s));
  f.end = f.start + std::chrono::seconds(60);
  f.summary = "a, \"quoted\" summary";
  return f;
}

TEST(HistoryFindings, FormatsParse) {
  EXPECT_EQ(*parse_findings_format("json"), FindingsFormat::Json);
  EXPECT_EQ(*parse_findings_format("jsonl"), FindingsFormat::Jsonl);
  EXPECT_EQ(*parse_findings_format("table"), FindingsFormat::Table);
  EXPECT_EQ(*parse_findings_format("csv"), FindingsFormat::Csv);
  EXPECT_FALSE(parse_findings_format("xml"));
}

TEST(HistoryFindings, SelectsByGpuIndexOrUuid) {
  std::vector<diagnose::Finding> all = {finding("a", {0}, 0), finding("b", {1, 6}, 5, "GPU-b"), finding("c", {6}, 9, "GPU-c")};
  EXPECT_EQ(findings_involving(all, std::nullopt, std::nullopt).size(), 3U);
  const auto six = findings_involving(all, 6u, std::nullopt);
  ASSERT_EQ(six.size(), 2U);
  EXPECT_EQ(six[0].kind, "b");
  const auto by_uuid = findings_involving(all, std::nullopt, std::string("GPU-c"));
  ASSERT_EQ(by_uuid.size(), 1U);
  EXPECT_EQ(by_uuid[0].kind, "c");
}

TEST(HistoryFindings, TableCsvJsonInTimeOrder) {
  std::vector<diagnose::Finding> all = {finding("late", {6}, 100), finding("early", {1, 2}, 0)};
  const std::string table = render_findings(all, FindingsFormat::Table);
  EXPECT_EQ(table.rfind("start", 0), 0U);
  EXPECT_LT(table.find("early"), table.find("late"));
  EXPECT_NE(table.find("1,2  warning   early"), std::string::npos) << table;
  const std::string csv = render_findings(all, FindingsFormat::Csv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "start,end,gpu,severity,kind,episodes,summary");
  EXPECT_NE(csv.find(",\"1,2\",warning,early,1,\"a, \"\"quoted\"\" summary\"\n"), std::string::npos) << csv;
  const auto json = nlohmann::json::parse(render_findings(all, FindingsFormat::Json));
  ASSERT_EQ(json["findings"].size(), 2U);
  EXPECT_EQ(json["findings"][0]["kind"], "early");
  // A grouped finding (issue 23): its episodes counted in the row.
  all[0].episodes.resize(288);
  EXPECT_NE(render_findings(all, FindingsFormat::Csv).find(",warning,late,288,"), std::string::npos);
  const std::string jsonl = render_findings(all, FindingsFormat::Jsonl);
  EXPECT_EQ(nlohmann::json::parse(jsonl.substr(0, jsonl.find('\n')))["kind"], "early");
}

TEST(HistoryFindings, NoneIsSaid) {
  EXPECT_EQ(render_findings({}, FindingsFormat::Table, "No findings in the 5 samples"), "No findings in the 5 samples\n");
  EXPECT_EQ(render_findings({}, FindingsFormat::Jsonl), "");
  EXPECT_EQ(nlohmann::json::parse(render_findings({}, FindingsFormat::Json)), nlohmann::json::parse(R"({"findings": []})"));
}

}  // namespace findings_render_test
}  // namespace gpuwatch::history
