// imbalance (issue 23, one cause per job): the saturated GPU is named as the cause; the ranks
// waiting for it are its consequences, not input-starved (nor underused) on their own.
#include <gtest/gtest.h>

#include <algorithm>

#include "scoring.hpp"
#include "sim_feed.hpp"

namespace gpuwatch::diagnose::testing {
namespace imbalance_check_test {

std::size_t count_kind(const std::vector<Finding>& fs, const std::string& kind) {
  return static_cast<std::size_t>(std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.kind == kind; }));
}

TEST(DiagnoseImbalance, SaturatedGpuIsTheCauseAndTheWaitingRanksAreNotStarved) {
  for (double interval : {1.0, 5.0}) {
    auto fs = SimFeed::builtin("uneven_load").diagnose(900, interval);
    ASSERT_EQ(count_kind(fs, "imbalance"), 1u) << listing(fs);
    const Finding& f = *std::find_if(fs.begin(), fs.end(), [](const Finding& x) { return x.kind == "imbalance"; });
    EXPECT_EQ(f.gpus, (std::vector<unsigned>{0, 1, 2, 3}));
    EXPECT_EQ(f.cause_gpus, (std::vector<unsigned>{0}));
    ASSERT_TRUE(f.job.has_value());
    EXPECT_EQ(f.job->label, "python");  // NVML's process name: the snapshot alone (history adds the command)
    EXPECT_NE(f.detail.find("GPU 0 is saturated"), std::string::npos) << f.detail;
    EXPECT_NE(f.detail.find("not input stalls"), std::string::npos) << f.detail;
    // At any severity: the waiting ranks' idle time is the imbalance's.
    EXPECT_EQ(count_kind(fs, "input_starved"), 0u) << interval << "s\n" << listing(fs);
    EXPECT_EQ(count_kind(fs, "low_utilization"), 0u) << interval << "s\n" << listing(fs);
  }
}

// A GPU alone with the same gaps is input-starved: the suppression is the imbalance's only.
TEST(DiagnoseImbalance, AStarvedGpuOnItsOwnIsStillStarved) {
  auto fs = SimFeed::builtin("dataloader_starvation").diagnose(600, 1);
  EXPECT_EQ(count_kind(fs, "input_starved"), 1u) << listing(fs);
  EXPECT_EQ(count_kind(fs, "imbalance"), 0u) << listing(fs);
}

}  // namespace imbalance_check_test
}  // namespace gpuwatch::diagnose::testing
