#include "history/jobs_render.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gpuwatch::history {
namespace jobs_render_test {  // this test file's helpers (unity builds: no clash with another file's)

std::vector<store::JobRow> two_jobs() {
  store::JobRow done;
  done.id = 2;
  done.name = "train";
  done.command = "[\"python\",\"train.py\",\"--lr\",\"1e-3,2\"]";
  done.user = "alice";
  done.host = "node1";
  done.start_ms = 1'700'000'000'000;
  done.end_ms = done.start_ms + 3'725'000;
  done.exit_status = 0;
  done.gpus = "[{\"index\":2,\"uuid\":\"GPU-2\",\"mig_uuids\":[]},{\"index\":3,\"uuid\":\"GPU-3\",\"mig_uuids\":[]}]";
  done.summary = "{\"gpu_hours\":2.069,\"energy_wh\":1234.5}";
  store::JobRow running;
  running.id = 1;
  running.name = "eval";
  running.command = "[\"sh\"]";
  running.user = "bob";
  running.host = "node1";
  running.start_ms = done.start_ms - 60'000;
  return {done, running};
}

const auto kNow = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'100'000));

TEST(JobsRender, TableHasOneRowPerJobWithWallTimeGpusAndEnergy) {
  auto text = render_jobs(two_jobs(), JobsFormat::Table, kNow);
  EXPECT_NE(text.find("1h02m"), std::string::npos);
  EXPECT_NE(text.find("2,3"), std::string::npos);
  EXPECT_NE(text.find("1234.50"), std::string::npos);
  EXPECT_NE(text.find("none"), std::string::npos);  // the running job has no GPUs yet
  EXPECT_NE(text.find("2m40s+"), std::string::npos);  // no end: run time so far, marked
}

TEST(JobsRender, CsvQuotesCellsWithCommasAndLeavesAbsentEmpty) {
  auto csv = render_jobs(two_jobs(), JobsFormat::Csv, kNow);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "id,start,wall,exit,gpus,gpu_hours,energy_wh,cost,currency,co2_g,user,name,command");
  EXPECT_NE(csv.find(",\"2,3\","), std::string::npos);
  EXPECT_NE(csv.find("\"python train.py --lr 1e-3,2\""), std::string::npos);
  EXPECT_NE(csv.find(",,"), std::string::npos);  // the running job's exit status and energy
}

TEST(JobsRender, JsonKeepsNullsAndTheParsedSummary) {
  auto json = nlohmann::json::parse(render_jobs(two_jobs(), JobsFormat::Json, kNow));
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["id"], 2);
  EXPECT_EQ(json[0]["command"][1], "train.py");
  EXPECT_EQ(json[0]["summary"]["energy_wh"], 1234.5);
  EXPECT_TRUE(json[1]["end"].is_null());
  EXPECT_TRUE(json[1]["exit_status"].is_null());
}

TEST(JobsRender, CostAndCo2ColumnsWhenTheJobHadRates) {
  auto jobs = two_jobs();
  jobs[0].summary = "{\"gpu_hours\":2.069,\"energy_wh\":1234.5,\"energy\":{\"cost\":0.148,\"currency\":\"EUR\",\"co2_g\":432.1}}";
  auto csv = render_jobs(jobs, JobsFormat::Csv, kNow);
  EXPECT_NE(csv.find(",1234.50,0.148,EUR,432.1,alice,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",,,,,bob,"), std::string::npos) << csv;  // the running job: no energy, no cost, no CO2
  auto text = render_jobs(jobs, JobsFormat::Table, kNow);
  EXPECT_NE(text.find("0.148 EUR"), std::string::npos) << text;
  EXPECT_NE(text.find("432.1"), std::string::npos);
}

TEST(JobsRender, FormatNamesAreChecked) {
  EXPECT_TRUE(parse_jobs_format("csv"));
  auto bad = parse_jobs_format("jsonl");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("jsonl"), std::string::npos);
}

}  // namespace jobs_render_test
}  // namespace gpuwatch::history
