// What fuzz/request_target_fuzz.cpp found (issue 16, part 4): the 400's reason named a query
// parameter whole, line breaks and kilobytes included.
#include <gtest/gtest.h>

#include "exporter/http/request_target.hpp"

namespace gpuwatch::exporter::http {
namespace {

TEST(RequestTargetFuzzFindings, AParameterNameInAnErrorIsPrintableAndShort) {
  auto crlf = parse_request_target("/api/v1/history?a%0D%0ASet-Cookie:%20x=%ff");
  ASSERT_FALSE(crlf);
  EXPECT_EQ(crlf.error().message, "query parameter 'a??Set-Cookie: x': not valid UTF-8");

  auto long_name = parse_request_target("/x?" + std::string(5000, 'n') + "=%ff");
  ASSERT_FALSE(long_name);
  EXPECT_EQ(long_name.error().message, "query parameter '" + std::string(40, 'n') + "...': not valid UTF-8");

  auto plain = parse_request_target("/api/v1/history?gpu=%ff");  // a short printable name, as before
  ASSERT_FALSE(plain);
  EXPECT_EQ(plain.error().message, "query parameter 'gpu': not valid UTF-8");
}

}  // namespace
}  // namespace gpuwatch::exporter::http
