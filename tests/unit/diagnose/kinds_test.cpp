// The kinds table (diagnose/kinds.def): every kind has all its words, its advice, its entry in
// docs/diagnose.md and a check in the file of its category; ids are unique, snake_case, stable.
#include "diagnose/kinds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gpuwatch::diagnose {
namespace kinds_test {  // this test file's helpers (unity builds: no clash with another file's)

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The enumerator's name of each row, which kind_table() does not keep.
struct Row {
  const char* enumerator;
  Kind kind;
};
const std::vector<Row> kRows = {
#define GW_KIND(enumerator, id, category, urgency, store_share, title, phrase, summary, timeline, ...) \
  {#enumerator, Kind::enumerator},
#include "diagnose/kinds.def"
#undef GW_KIND
};

// The files whose checks evaluate the kinds of a category (kinds.def's Category column).
std::vector<std::string> check_files(Category category) {
  switch (category) {
    case Category::Utilization: return {"src/diagnose/utilization_checks.cpp"};
    case Category::Throttle: return {"src/diagnose/throttle_checks.cpp"};
    case Category::Memory: return {"src/diagnose/memory_checks.cpp"};
    case Category::Hardware: return {"src/diagnose/hardware_checks.cpp"};
    case Category::Job:
      return {"src/diagnose/imbalance_check.cpp", "src/diagnose/collective_hang_check.cpp",
              "src/diagnose/comm_bound_check.cpp"};
  }
  return {};
}

// The ids of the "### `id`" headings of the page's "## The kinds" section.
std::vector<std::string> documented_kinds(const std::string& page) {
  std::vector<std::string> ids;
  const auto from = page.find("\n## The kinds\n");
  if (from == std::string::npos) return ids;
  const auto to = page.find("\n## ", from + 1);
  std::istringstream section(page.substr(from, to == std::string::npos ? std::string::npos : to - from));
  for (std::string line; std::getline(section, line);) {
    if (line.rfind("### `", 0) != 0) continue;
    const auto end = line.find('`', 5);
    if (end != std::string::npos) ids.push_back(line.substr(5, end - 5));
  }
  return ids;
}

TEST(DiagnoseKinds, EveryKindHasItsWordsAndAdvice) {
  const std::set<std::string_view> events = {"finding", "ecc", "lost", "hardware", ""};
  for (const auto& info : kind_table()) {
    const std::string id(info.id);
    EXPECT_FALSE(info.id.empty());
    EXPECT_FALSE(info.title.empty()) << id;
    EXPECT_FALSE(info.phrase.empty()) << id;
    EXPECT_EQ(kind_phrase(info.kind), info.phrase) << id;
    // The report's sentence names the GPUs and ends a sentence (report/summary_test.cpp renders it).
    EXPECT_NE(info.summary_sentence.find("{gpus}"), std::string_view::npos) << id;
    EXPECT_TRUE(info.summary_sentence.ends_with(".")) << id;
    EXPECT_TRUE(events.count(info.timeline_event)) << id << ": timeline event '" << info.timeline_event << "'";
    ASSERT_FALSE(info.advice.empty()) << id;
    for (auto line : info.advice) EXPECT_FALSE(line.empty()) << id;
    EXPECT_EQ(default_advice(info.kind).size(), info.advice.size()) << id;
  }
}

TEST(DiagnoseKinds, IdsAreUniqueSnakeCaseAndLookUpBothWays) {
  ASSERT_EQ(kind_table().size(), kKindCount);
  ASSERT_EQ(kRows.size(), kKindCount);
  const std::regex snake_case("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < kKindCount; ++i) {
    const auto& info = kind_table()[i];
    const std::string id(info.id);
    EXPECT_EQ(info.kind, static_cast<Kind>(i)) << id;  // kind_info() indexes the table by the enum
    EXPECT_TRUE(std::regex_match(id, snake_case)) << id;
    EXPECT_TRUE(seen.insert(info.id).second) << id << " twice";
    EXPECT_EQ(kind_id(info.kind), info.id);
    EXPECT_EQ(kind_of_id(info.id), info.kind) << id;
  }
  EXPECT_FALSE(kind_of_id("no_such_kind"));
  EXPECT_FALSE(kind_of_id(""));
  EXPECT_EQ(kind_phrase(Kind::ThermalThrottle), "thermal throttling");
  EXPECT_EQ(kind_info(Kind::MemoryLeak).urgency, Urgency::Urgent);
}

// A released id is in users' alert rules, dashboards and scripts: it may never go.
TEST(DiagnoseKinds, ReleasedIdsStay) {
  for (const char* id : {"input_starved", "launch_bound", "low_utilization", "imbalance", "thermal_throttle",
                         "power_cap", "other_throttle", "memory_leak", "memory_pressure", "idle_process",
                         "stuck_kernel", "unattributed_memory", "ecc_uncorrectable", "row_remap", "xid", "gpu_lost",
                         "recovery_action", "pcie_degraded", "collective_hang"})
    EXPECT_TRUE(kind_of_id(id)) << id;
}

TEST(DiagnoseKinds, EveryKindHasItsEntryInTheDocsAndTheDocsNoOther) {
  const std::string page = read_source("docs/diagnose.md");
  ASSERT_FALSE(page.empty()) << "docs/diagnose.md not found under " << GPUWATCH_SOURCE_DIR;
  const auto documented = documented_kinds(page);
  for (const auto& info : kind_table()) {
    EXPECT_NE(std::find(documented.begin(), documented.end(), std::string(info.id)), documented.end())
        << "no \"### `" << info.id << "`\" under \"## The kinds\" in docs/diagnose.md";
  }
  for (const auto& id : documented) EXPECT_TRUE(kind_of_id(id)) << "docs/diagnose.md documents `" << id << "`, no kind";
}

TEST(DiagnoseKinds, EveryKindIsEvaluatedInTheCheckFileOfItsCategory) {
  for (const auto& row : kRows) {
    const auto& info = kind_info(row.kind);
    bool found = false;
    for (const auto& file : check_files(info.category)) {
      const std::string text = read_source(file);
      ASSERT_FALSE(text.empty()) << file;
      found = found || text.find(std::string("Kind::") + row.enumerator) != std::string::npos;
    }
    EXPECT_TRUE(found) << info.id << ": no Kind::" << row.enumerator << " in the check file of its category";
  }
}

}  // namespace kinds_test
}  // namespace gpuwatch::diagnose
