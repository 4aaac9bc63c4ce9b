#include "terminal/text_table.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

TEST(TextTable, PadsToTheWidestCellAndRightAlignsNumbers) {
  EXPECT_EQ(text_table({{"gpu", "util"}, {"0", "100 %"}, {"12", "5 %"}}, 1),
            "gpu   util\n"
            "0    100 %\n"
            "12     5 %\n");
}

TEST(TextTable, AllLeftAlignedByDefaultWithoutTrailingSpaces) {
  EXPECT_EQ(text_table({{"kind", "summary"}, {"memory_leak", "x"}}), "kind         summary\nmemory_leak  x\n");
}

TEST(TextTable, ATextColumnLastIsLeftAlignedAgain) {
  EXPECT_EQ(text_table({{"gpu", "util", "command"}, {"0", "100 %", "python train.py"}, {"12", "5 %", "bash"}}, 1, 2),
            "gpu   util  command\n"
            "0    100 %  python train.py\n"
            "12     5 %  bash\n");
}

}  // namespace
}  // namespace gpuwatch::terminal
