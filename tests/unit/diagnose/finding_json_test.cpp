#include "diagnose/finding_json.hpp"

#include <gtest/gtest.h>

#include "sim_feed.hpp"

namespace gpuwatch::diagnose {
namespace {

TEST(DiagnoseJson, SchemaKeysAreSnakeCaseAndTimesUnixSeconds) {
  Finding f;
  f.kind = "memory_leak";
  f.severity = Severity::Warning;
  f.gpus = {6};
  f.uuids = {"GPU-x"};
  f.start = testing::at_s(10);
  f.end = testing::at_s(70);
  f.pid = 4242;
  f.evidence = {{"rate_bytes_per_s", 1e6}};
  f.advice = {"a"};
  f.summary = "s";
  auto j = findings_json(std::vector<Finding>{f});
  const auto& x = j.at("findings").at(0);
  for (const char* key : {"kind", "severity", "gpus", "uuids", "start", "end", "evidence", "impact", "advice", "summary",
                          "active", "pid", "detail"})
    EXPECT_TRUE(x.contains(key)) << key;
  EXPECT_EQ(x["severity"], "warning");
  EXPECT_DOUBLE_EQ(x["start"].get<double>(), testing::kEpochS + 10);
  EXPECT_TRUE(x["impact"].is_null());  // not estimated: null, never 0
  EXPECT_EQ(x["evidence"]["rate_bytes_per_s"], 1e6);
}

}  // namespace
}  // namespace gpuwatch::diagnose
