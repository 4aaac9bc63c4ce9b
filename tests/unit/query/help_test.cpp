#include "query/help.hpp"

#include <gtest/gtest.h>

#include "core/field_table.hpp"

namespace gpuwatch::query {
namespace {

TEST(QueryHelp, ListsEveryFieldWithAliasesAndMarksUnreadOnes) {
  std::string text = help_query_gpu_text();
  for (const auto& f : core::field_table()) {
    EXPECT_NE(text.find("\"" + std::string(f.name) + "\""), std::string::npos) << f.name;
  }
  EXPECT_NE(text.find("\"clocks_event_reasons.active\" or \"clocks_throttle_reasons.active\""), std::string::npos);
  EXPECT_NE(text.find("[not read]"), std::string::npos);
}

TEST(QueryHelp, MarkdownHasOneRowPerField) {
  std::string md = fields_markdown();
  std::size_t rows = 0;
  for (std::size_t pos = md.find("\n| `"); pos != std::string::npos; pos = md.find("\n| `", pos + 1)) ++rows;
  EXPECT_EQ(rows, core::field_table().size());
  EXPECT_NE(md.find("| `memory.used` |  | `memory.used [MiB]` | `memory_used_bytes` | bytes | yes |"), std::string::npos);
}

TEST(QueryHelp, ComputeAppsHelp) {
  std::string text = help_query_compute_apps_text();
  EXPECT_NE(text.find("\"process_name\" or \"name\""), std::string::npos);
  EXPECT_NE(text.find("\"used_gpu_memory\" or \"used_memory\""), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::query
