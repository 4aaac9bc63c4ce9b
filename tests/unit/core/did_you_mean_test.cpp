#include "core/did_you_mean.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::core {
namespace {

using Names = std::vector<std::string>;

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("status", "status"), 0u);
  EXPECT_EQ(edit_distance("stauts", "status"), 1u);  // two neighbours swapped
  EXPECT_EQ(edit_distance("lst", "list"), 1u);
  EXPECT_EQ(edit_distance("demoo", "demo"), 1u);
  EXPECT_EQ(edit_distance("utilisation.gpu", "utilization.gpu"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("JSON", "json"), 0u);  // case is ignored
}

TEST(ClosestMatches, SuggestsTheCommandsOfIssue9) {
  const Names commands = {"status", "query", "dmon", "pmon", "sim", "record", "history", "report", "serve"};
  EXPECT_EQ(closest_matches("stauts", commands), Names{"status"});
  EXPECT_EQ(closest_matches("reocrd", commands), Names{"record"});
  EXPECT_EQ(closest_matches("hist", commands), Names{"history"});  // a prefix
  EXPECT_EQ(closest_matches("lst", Names{"list", "show", "run", "import"}), Names{"list"});
}

TEST(ClosestMatches, KeepsOnlyTheBestDistanceBestFirst) {
  EXPECT_EQ(closest_matches("xmon", Names{"dmon", "pmon", "status"}), (Names{"dmon", "pmon"}));
  EXPECT_EQ(closest_matches("memory.usd", Names{"memory.used", "memory.free", "memory.total"}), Names{"memory.used"});
  EXPECT_EQ(closest_matches("a", Names{"b", "c", "d", "e"}, 2).size(), 2u);  // at most MAX
}

TEST(ClosestMatches, SuggestsNothingFarAwayOrTheWordItself) {
  EXPECT_TRUE(closest_matches("banana", Names{"status", "query"}).empty());
  EXPECT_TRUE(closest_matches("status", Names{"status"}).empty());
  EXPECT_TRUE(closest_matches("", Names{"status"}).empty());
  EXPECT_EQ(closest_matches("Status", Names{"status"}), Names{"status"});  // only case differs
}

TEST(DidYouMean, PhrasesOneOrSeveralSuggestions) {
  EXPECT_EQ(did_you_mean("stauts", Names{"status", "serve"}), " Did you mean 'status'?");
  EXPECT_EQ(did_you_mean("xmon", Names{"dmon", "pmon"}), " Did you mean 'dmon' or 'pmon'?");
  EXPECT_EQ(did_you_mean("x", Names{"a", "b", "c"}), " Did you mean 'a', 'b' or 'c'?");
  EXPECT_EQ(did_you_mean("banana", Names{"status"}), "");
}

}  // namespace
}  // namespace gpuwatch::core
