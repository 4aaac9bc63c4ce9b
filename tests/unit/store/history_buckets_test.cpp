#include "store/history_buckets.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_buckets_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kMinute = 60'000, kHour = 60 * kMinute, kDay = 24 * kHour;

// GPU utilization i % 10 tenths at sample i, so bucket means are known.
core::Snapshot sample(std::int64_t time_ms, int i, unsigned devices) {
  core::Snapshot snapshot = make_snapshot(time_ms, devices);
  for (auto& device : snapshot.devices) {
    device.get(FieldId::UtilizationGpu) = core::FieldReading::of(0.1 * (i % 10));
  }
  return snapshot;
}

class HistoryBucketsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = HistoryDatabase::open(dir_.file("history.db"), OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
  }
  void record(std::int64_t first_ms, int count, std::int64_t step_ms, unsigned devices) {
    HistoryWriter writer(*db_);
    for (int i = 0; i < count; ++i) writer.add(sample(first_ms + i * step_ms, i, devices));
    auto written = writer.flush();
    ASSERT_TRUE(written) << written.error().message;
  }
  BucketQuery query(std::int64_t since, std::int64_t until, std::int64_t bucket) const {
    BucketQuery q;
    q.since_ms = since;
    q.until_ms = until;
    q.bucket_ms = bucket;
    q.fields = {FieldId::UtilizationGpu, FieldId::MemoryUsed, FieldId::PowerDraw, FieldId::FanSpeed,
                FieldId::PowerLimit};
    return q;
  }
  TempDir dir_;
  std::unique_ptr<HistoryDatabase> db_;
};

TEST_F(HistoryBucketsTest, AveragesRawSamplesIntoBucketsPerGpu) {
  record(10'000, 10, 1000, 2);  // t = 10 s .. 19 s
  auto history = read_bucketed_history(*db_, query(0, 100'000, 5000));
  ASSERT_TRUE(history) << history.error().message;
  EXPECT_EQ(history->bucket_ms, 5000);
  EXPECT_EQ(history->coarsest_source_ms, 0);
  ASSERT_EQ(history->gpus.size(), 2U);
  const GpuBuckets& gpu1 = history->gpus[1];
  EXPECT_EQ(gpu1.index, 1U);
  ASSERT_EQ(gpu1.time_ms, (std::vector<std::int64_t>{10'000, 15'000}));
  ASSERT_EQ(gpu1.values.size(), 5U);
  EXPECT_NEAR(*gpu1.values[0][0], (0.0 + 0.1 + 0.2 + 0.3 + 0.4) / 5, 1e-9);
  EXPECT_NEAR(*gpu1.values[0][1], (0.5 + 0.6 + 0.7 + 0.8 + 0.9) / 5, 1e-9);
  EXPECT_DOUBLE_EQ(*gpu1.values[1][0], static_cast<double>(2ULL << 30));  // GPU 1's memory, base units
  EXPECT_FALSE(gpu1.values[2][0].has_value()) << "power is unsupported: absent, not 0";
  ASSERT_TRUE(gpu1.values[3][0].has_value()) << "a real 0 stays a value";
  EXPECT_EQ(*gpu1.values[3][0], 0.0);
  EXPECT_FALSE(gpu1.values[4][0].has_value()) << "power.limit is not recorded";
  EXPECT_NEAR(*gpu1.minimum[0][1], 0.5, 1e-9);  // the bucket's least and greatest sample
  EXPECT_NEAR(*gpu1.maximum[0][1], 0.9, 1e-9);
}

TEST_F(HistoryBucketsTest, RangeAndGpuFilters) {
  record(10'000, 10, 1000, 3);
  auto q = query(12'000, 13'999, 1000);
  q.gpu_index = 2;
  auto history = read_bucketed_history(*db_, q);
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->gpus.size(), 1U);
  EXPECT_EQ(history->gpus[0].index, 2U);
  EXPECT_EQ(history->gpus[0].time_ms, (std::vector<std::int64_t>{12'000, 13'000}));
  EXPECT_NEAR(*history->gpus[0].values[0][1], 0.3, 1e-9);

  auto empty = read_bucketed_history(*db_, query(50'000, 60'000, 1000));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->gpus.empty());
}

TEST_F(HistoryBucketsTest, ReadsRollupsWhereRawSamplesExpired) {
  const std::int64_t t0 = 1'700'000'000'000 / kHour * kHour;
  record(t0, 120, 1000, 1);             // two minutes at 1 Hz, then rolled up
  RetentionPolicy policy;
  policy.raw = std::chrono::milliseconds(kDay);
  ASSERT_TRUE(apply_retention(*db_, policy, t0 + 2 * kDay));
  record(t0 + 2 * kDay, 10, 1000, 1);   // recent raw samples
  auto history = read_bucketed_history(*db_, query(t0, t0 + 3 * kDay, 2 * kMinute));
  ASSERT_TRUE(history) << history.error().message;
  EXPECT_EQ(history->coarsest_source_ms, kMinute);
  ASSERT_EQ(history->gpus.size(), 1U);
  ASSERT_EQ(history->gpus[0].time_ms, (std::vector<std::int64_t>{t0, t0 + 2 * kDay}));
  EXPECT_NEAR(*history->gpus[0].values[0][0], 0.45, 1e-9);  // mean of 0.0 .. 0.9, from two 1-minute rows
  EXPECT_NEAR(*history->gpus[0].values[0][1], 0.45, 1e-9);  // from the raw samples
  // The spread: the rollups' own min and max, and the raw samples' extremes.
  EXPECT_NEAR(*history->gpus[0].minimum[0][0], 0.0, 1e-9);
  EXPECT_NEAR(*history->gpus[0].maximum[0][0], 0.9, 1e-9);
  EXPECT_NEAR(*history->gpus[0].minimum[0][1], 0.0, 1e-9);
  EXPECT_NEAR(*history->gpus[0].maximum[0][1], 0.9, 1e-9);
  EXPECT_FALSE(history->gpus[0].minimum[2][0].has_value()) << "no power: no band either";
}

TEST_F(HistoryBucketsTest, LongBucketsReadAtMost120EvenlySpacedSamples) {
  record(0, 480, 1000, 1);  // 8 minutes at 1 Hz, utilization 0.0 .. 0.9 repeating
  auto history = read_bucketed_history(*db_, query(0, 479'000, 240'000));  // stride 2 s: the even samples
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->gpus.size(), 1U);
  ASSERT_EQ(history->gpus[0].time_ms, (std::vector<std::int64_t>{0, 240'000}));
  EXPECT_NEAR(*history->gpus[0].values[0][0], (0.0 + 0.2 + 0.4 + 0.6 + 0.8) / 5, 1e-9);
  auto every = read_bucketed_history(*db_, query(0, 479'000, 120'000));  // stride 1 s: every sample
  ASSERT_TRUE(every);
  EXPECT_NEAR(*every->gpus[0].values[0][0], 0.45, 1e-9);
}

TEST_F(HistoryBucketsTest, ATimeBudgetStopsALongRead) {
  record(0, 12'500, 1000, 8);  // 100k GPU-samples
  auto q = query(0, 20'000'000, 1000);
  q.time_budget = std::chrono::milliseconds(1);
  auto history = read_bucketed_history(*db_, q);
  ASSERT_FALSE(history);
  EXPECT_NE(history.error().message.find("shorter range"), std::string::npos) << history.error().message;
  q.time_budget = std::chrono::milliseconds(0);  // and the connection works on afterwards
  EXPECT_TRUE(read_bucketed_history(*db_, q));
}

TEST_F(HistoryBucketsTest, ACancelledReadStopsAtOnceWithoutABudget) {
  record(0, 12'500, 1000, 8);
  auto q = query(0, 20'000'000, 1000);
  std::atomic<bool> stopping{true};  // serve is stopping: no read may hold it up
  q.cancelled = &stopping;
  auto history = read_bucketed_history(*db_, q);
  ASSERT_FALSE(history);
  EXPECT_NE(history.error().message.find("stopping"), std::string::npos) << history.error().message;
  stopping = false;  // not cancelled: the same query reads everything
  EXPECT_TRUE(read_bucketed_history(*db_, q));
}

TEST(ChooseBucket, RoundSizesBoundThePoints) {
  EXPECT_EQ(choose_bucket_ms(3'600'000, 1000, 1000), 5'000);       // 1 h: 3.6 s -> 5 s
  EXPECT_EQ(choose_bucket_ms(86'400'000, 1000, 1000), 120'000);    // 1 d: 86.4 s -> 2 min
  EXPECT_EQ(choose_bucket_ms(7 * 86'400'000LL, 1000, 1000), 15 * 60'000);  // 7 d: 10.1 min -> 15 min
  EXPECT_EQ(choose_bucket_ms(60'000, 1000, 200), 1'000);            // never finer than 1 s
  EXPECT_EQ(choose_bucket_ms(60'000, 1000, 30'000), 30'000);        // nor than the sampling interval
  EXPECT_EQ(choose_bucket_ms(3 * 365 * 86'400'000LL, 1000, 1000), 2 * 86'400'000LL);  // days beyond 12 h
  for (std::int64_t span : {1'000LL, 3'600'000LL, 86'400'000LL, 30 * 86'400'000LL}) {
    EXPECT_LE(span / choose_bucket_ms(span, 1000, 1000), 1000) << span;
  }
}

}  // namespace history_buckets_test
}  // namespace gpuwatch::store
