#include "host/process_start.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpuwatch::host {
namespace process_start_test {

TEST(ProcessStart, Field22IsCountedAfterTheLastParenthesis) {
  // A name with spaces and ')' in it, as a process may choose.
  const std::string stat = "4242 (evil) 1 2 3) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 1 0 987654 1000 10";
  EXPECT_EQ(start_ticks_of_stat(stat), 987654u);
  EXPECT_EQ(start_ticks_of_stat("4242 (short) S 1"), std::nullopt);
  EXPECT_EQ(start_ticks_of_stat("no parenthesis"), std::nullopt);
  EXPECT_EQ(start_ticks_of_stat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12ab 0"), std::nullopt);
}

TEST(ProcessStart, OwnProcessHasAStartAndAnAbsentPidHasNone) {
  const auto own = process_start_ticks(::getpid());
  ASSERT_TRUE(own);
  EXPECT_EQ(process_start_ticks(::getpid()), own);  // stable
  EXPECT_EQ(process_start_ticks(0), std::nullopt);
  EXPECT_EQ(process_start_ticks(-1), std::nullopt);
  EXPECT_EQ(process_start_ticks(::getpid(), "/nonexistent-proc"), std::nullopt);
}

}  // namespace process_start_test
}  // namespace gpuwatch::host
