#include "diagnose/finding_json.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diagnose/kinds.hpp"
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

TEST(DiagnoseKinds, EveryKindHasItsIdAdviceAndDocs) {
  const char* ids[] = {"input_starved", "launch_bound", "low_utilization", "imbalance", "thermal_throttle", "power_cap",
                       "other_throttle", "memory_leak", "memory_pressure", "idle_process", "stuck_kernel",
                       "unattributed_memory", "ecc_uncorrectable", "row_remap", "xid", "gpu_lost", "recovery_action",
                       "pcie_degraded", "collective_hang"};
  ASSERT_EQ(kind_table().size(), std::size(ids));
  EXPECT_FALSE(kind_of_id("no_such_kind"));
  EXPECT_EQ(kind_phrase(Kind::ThermalThrottle), "thermal throttling");
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/docs/diagnose.md");
  std::stringstream doc;
  doc << in.rdbuf();
  for (std::size_t i = 0; i < kind_table().size(); ++i) {
    EXPECT_EQ(kind_table()[i].id, ids[i]);
    EXPECT_EQ(kind_id(static_cast<Kind>(i)), ids[i]);
    EXPECT_FALSE(kind_table()[i].advice.empty()) << ids[i];
    EXPECT_EQ(kind_of_id(ids[i]), static_cast<Kind>(i)) << ids[i];
    EXPECT_FALSE(kind_phrase(static_cast<Kind>(i)).empty()) << ids[i];
    EXPECT_NE(doc.str().find(std::string("### `") + ids[i] + "`"), std::string::npos) << ids[i] << " in docs/diagnose.md";
  }
}

}  // namespace
}  // namespace gpuwatch::diagnose
