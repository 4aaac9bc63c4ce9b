#include "query/options.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::query {
namespace {

TEST(QueryOptions, CsvFormatWords) {
  auto f = parse_query_format("csv,noheader,nounits");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->output, QueryOutput::Csv);
  EXPECT_FALSE(f->header);
  EXPECT_FALSE(f->units);
  auto plain = parse_query_format("csv");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->header);
  EXPECT_TRUE(plain->units);
  EXPECT_EQ(parse_query_format("jsonl")->output, QueryOutput::Jsonl);
  EXPECT_FALSE(parse_query_format("xml"));
  EXPECT_FALSE(parse_query_format("noheader"));  // no kind
}

TEST(QueryOptions, FieldListsUseNvidiaSmiNamesAndErrors) {
  auto fields = parse_gpu_fields("gpu_name, memory.used,clocks_throttle_reasons.active");
  ASSERT_TRUE(fields);
  EXPECT_EQ(*fields, (std::vector<core::FieldId>{core::FieldId::Name, core::FieldId::MemoryUsed,
                                                 core::FieldId::ClocksEventReasonsActive}));
  auto bad = parse_gpu_fields("name,bogus.field");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "Field \"bogus.field\" is not a valid field to query. --help-query-gpu lists the fields.");
  auto apps = parse_app_fields("pid,used_memory");
  ASSERT_TRUE(apps);
  EXPECT_EQ(apps->size(), 2u);
}

// Issue 9: a misspelt field gets the closest names and where the list is.
TEST(QueryOptions, Issue9UnknownFieldSuggestsTheClosestName) {
  auto bad = parse_gpu_fields("index,utilisation.gpu");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "Field \"utilisation.gpu\" is not a valid field to query. Did you mean 'utilization.gpu'? "
            "--help-query-gpu lists the fields.");
  auto app = parse_app_fields("pid,used_memry");
  ASSERT_FALSE(app);
  EXPECT_NE(app.error().message.find("Did you mean 'used_memory'?"), std::string::npos);
  EXPECT_NE(app.error().message.find("--help-query-compute-apps"), std::string::npos);
}

TEST(QueryOptions, LmsIsRewrittenForCli11) {
  const char* argv[] = {"gpuwatch", "query", "-lms", "500", "-lms=20", "-l", "1"};
  auto out = normalize_nvidia_smi_args(7, const_cast<char**>(argv));
  EXPECT_EQ(out, (std::vector<std::string>{"gpuwatch", "query", "--loop-ms", "500", "--loop-ms=20", "-l", "1"}));
}

}  // namespace
}  // namespace gpuwatch::query
