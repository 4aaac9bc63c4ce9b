#include "push/exposition_series.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace exposition_series_test {

using gpuwatch::push::Label;

TEST(PushExpositionSeries, SampleLinesBecomeSeriesWithExternalLabels) {
  const std::string text =
      "# HELP gpuwatch_up Whether the GPU answers.\n"
      "# TYPE gpuwatch_up gauge\n"
      "gpuwatch_up{gpu=\"0\",uuid=\"GPU-a\"} 1\n"
      "gpuwatch_build_info{version=\"0.1\",name=\"a \\\"q\\\" \\\\ b\"} 1\n"
      "gpuwatch_temp{gpu=\"1\",cluster=\"own\"} NaN\n"
      "gpuwatch_collector_success 0\n"
      "not a line at all {\n";
  const auto series = gpuwatch::push::series_from_exposition(text, 5000, {{"cluster", "hpc"}, {"job", "gpuwatch"}});
  ASSERT_EQ(series.size(), 4u);
  EXPECT_EQ(series[0].labels[0], (Label{"__name__", "gpuwatch_up"}));
  EXPECT_EQ(series[0].labels[2], (Label{"uuid", "GPU-a"}));
  EXPECT_EQ(series[0].labels[3], (Label{"cluster", "hpc"}));
  EXPECT_EQ(series[0].samples[0].timestamp_ms, 5000);
  EXPECT_EQ(series[1].labels[2].value, "a \"q\" \\ b");
  // A label the line has wins over the external one.
  EXPECT_EQ(series[2].labels[2], (Label{"cluster", "own"}));
  EXPECT_EQ(series[2].labels.size(), 4u);
  EXPECT_TRUE(std::isnan(series[2].samples[0].value));
  EXPECT_EQ(series[3].labels.size(), 3u);
  EXPECT_EQ(series[3].samples[0].value, 0.0);
}

}  // namespace exposition_series_test
