#include "push/exposition_series.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

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

TEST(PushExpositionSeries, GpuSeriesStampedWhenTheirSampleWasTaken) {
  const std::string text = "gpuwatch_gpus 2\ngpuwatch_up{gpu=\"0\"} 1\ngpuwatch_power{gpu=\"1\"} 300\n";
  std::map<std::string, std::int64_t> last;
  auto series = gpuwatch::push::series_from_exposition(text, 10'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 9'100, true}, {"1", 9'400, true}}, 10'000, last);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].samples[0].timestamp_ms, 10'000);  // no gpu label: the push's time
  EXPECT_EQ(series[1].samples[0].timestamp_ms, 9'100);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 9'400);

  // Next push: GPU 0 has a new sample; GPU 1 the same (age rounding: 1 ms off) and up: 1 ms after.
  series = gpuwatch::push::series_from_exposition(text, 11'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 10'100, true}, {"1", 9'401, true}}, 11'000, last);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[1].samples[0].timestamp_ms, 10'100);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 9'401);

  // GPU 1 stalls (down, same sample): stamped at the push so gpuwatch_up 0 arrives; its late
  // sample (started before that push) is stamped just after it, never back in time.
  series = gpuwatch::push::series_from_exposition(text, 12'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 11'100, true}, {"1", 9'400, false}}, 12'000, last);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 12'000);
  series = gpuwatch::push::series_from_exposition(text, 13'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 12'100, true}, {"1", 11'500, true}}, 13'000, last);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 12'001);
  series = gpuwatch::push::series_from_exposition(text, 14'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 13'100, true}, {"1", 13'050, true}}, 14'000, last);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 13'050);

  // A GPU without a sample yet (taken_ms 0): at the push; its first sample never before that.
  std::map<std::string, std::int64_t> fresh;
  series = gpuwatch::push::series_from_exposition(text, 20'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 0, false}, {"1", 19'900, true}}, 20'000, fresh);
  EXPECT_EQ(series[1].samples[0].timestamp_ms, 20'000);
  EXPECT_EQ(series[2].samples[0].timestamp_ms, 19'900);
  series = gpuwatch::push::series_from_exposition(text, 21'000, {});
  gpuwatch::push::stamp_gpu_series(series, {{"0", 19'950, true}, {"1", 20'900, true}}, 21'000, fresh);
  EXPECT_EQ(series[1].samples[0].timestamp_ms, 20'001);
}

}  // namespace exposition_series_test
