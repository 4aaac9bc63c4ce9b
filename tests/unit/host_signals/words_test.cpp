#include "host_signals/words.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace words_test {

TEST(HostWords, SplitsLinesAndWordsAndReadsNumbers) {
  EXPECT_EQ(lines_of("a\nb c\n").size(), 2u);
  EXPECT_EQ(first_line("one\ntwo"), "one");
  const auto w = words_of("  cpu0\t 12  34 ");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[2], "34");
  EXPECT_EQ(unsigned_of("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(unsigned_of("12x"));
  EXPECT_FALSE(unsigned_of("-1"));
  EXPECT_FALSE(unsigned_of(""));
  EXPECT_EQ(decimal_of("48.49"), 48.49);
  EXPECT_FALSE(decimal_of("4.x"));
}

}  // namespace words_test
}  // namespace gpuwatch::host_signals
