#include "exporter/jobs_api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::exporter {
namespace jobs_api_test {  // this test file's helpers (unity builds: no clash with another file's)

store::JobRow job(std::int64_t id, bool lost) {
  store::JobRow j;
  j.id = id;
  j.name = "train";
  j.command = R"(["python","train.py"])";
  j.user = "alice";
  j.host = "node1";
  j.start_ms = 1'700'000'000'000;
  if (!lost) {
    j.end_ms = 1'700'000'060'000;
    j.exit_status = 0;
    j.summary = R"({"energy_wh": 1.5, "energy": {"joules": 5400, "cost": 0.00045, "currency": "EUR"}})";
  }
  j.gpus = R"([{"index": 0, "uuid": "GPU-1"}])";
  j.monitor_lost = lost;
  return j;
}

TEST(JobsApi, TheLimitIsAWholeNumberFromOneToAThousand) {
  EXPECT_EQ(*parse_jobs_limit(""), kDefaultJobsLimit);
  EXPECT_EQ(*parse_jobs_limit("20"), 20u);
  EXPECT_EQ(*parse_jobs_limit("1000"), 1000u);
  for (const char* bad : {"0", "-1", "abc", "1.5", "20x", "+3"}) {
    auto parsed = parse_jobs_limit(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("limit must be"), std::string::npos) << parsed.error().message;
    EXPECT_NE(parsed.error().message.find(bad), std::string::npos) << parsed.error().message;
  }
  auto big = parse_jobs_limit("1001");
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("at most 1000"), std::string::npos) << big.error().message;
}

TEST(JobsApi, TheJobsAsHistoryJobsListsThemWithTheLimit) {
  const auto json = nlohmann::json::parse(
      jobs_api_json({job(7, true), job(6, false)}, 20, std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'100))));
  EXPECT_EQ(json["limit"], 20);
  ASSERT_EQ(json["jobs"].size(), 2u);
  const auto& lost = json["jobs"][0];
  EXPECT_EQ(lost["id"], 7);
  EXPECT_EQ(lost["status"], "monitor lost");
  EXPECT_TRUE(lost["end_ms"].is_null());
  EXPECT_TRUE(lost["summary"].is_null());
  const auto& done = json["jobs"][1];
  EXPECT_EQ(done["command"], nlohmann::json({"python", "train.py"}));
  EXPECT_EQ(done["exit_status"], 0);
  EXPECT_FALSE(done.contains("status"));
  EXPECT_EQ(done["summary"]["energy"]["currency"], "EUR");
  EXPECT_EQ(done["gpus"][0]["index"], 0);
  EXPECT_EQ(nlohmann::json::parse(jobs_api_json({}, 50, {}))["jobs"], nlohmann::json::array());
  EXPECT_EQ(nlohmann::json::parse(jobs_api_json({}, 50, {}))["recording"], true);
  const auto unrecorded = nlohmann::json::parse(jobs_unrecorded_json(20));
  EXPECT_TRUE(unrecorded["jobs"].is_null());  // nothing recorded: null, not an empty list
  EXPECT_EQ(unrecorded["recording"], false);
  EXPECT_EQ(unrecorded["limit"], 20);
  EXPECT_NE(unrecorded["reason"].get<std::string>().find("serve --no-record"), std::string::npos);
}

}  // namespace jobs_api_test
}  // namespace gpuwatch::exporter
