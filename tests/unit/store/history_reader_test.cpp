#include "store/history_reader.hpp"

#include <gtest/gtest.h>

#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace {

using testing::make_snapshot;
using testing::TempDir;

class HistoryReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = HistoryDatabase::open(dir_.file("history.db"), OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    HistoryWriter writer(*db_);
    for (int i = 0; i < 10; ++i) writer.add(make_snapshot(10'000 + i * 1000, 3));  // t = 10s..19s, 3 GPUs
    ASSERT_TRUE(writer.flush());
  }
  TempDir dir_;
  std::unique_ptr<HistoryDatabase> db_;
};

TEST_F(HistoryReaderTest, RangeIsInclusiveAndInTimeOrder) {
  HistoryQuery query;
  query.since_ms = 12'000;
  query.until_ms = 14'000;
  auto history = read_history(*db_, query);
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 3U);
  EXPECT_EQ(to_unix_ms(history->front().timestamp), 12'000);
  EXPECT_EQ(to_unix_ms(history->back().timestamp), 14'000);
  for (const auto& snapshot : *history) {
    ASSERT_EQ(snapshot.devices.size(), 3U);
    EXPECT_EQ(snapshot.devices[0].index, 0U);
    EXPECT_EQ(snapshot.devices[2].index, 2U);
  }
}

TEST_F(HistoryReaderTest, FiltersOneGpuByIndexOrUuid) {
  HistoryQuery by_index;
  by_index.gpu_index = 1;
  auto history = read_history(*db_, by_index);
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 10U);
  for (const auto& snapshot : *history) {
    ASSERT_EQ(snapshot.devices.size(), 1U);
    EXPECT_EQ(snapshot.devices[0].get(core::FieldId::Uuid).as_string(), "GPU-00000001");
  }
  HistoryQuery by_uuid;
  by_uuid.gpu_uuid = "GPU-00000002";
  auto two = read_history(*db_, by_uuid);
  ASSERT_TRUE(two);
  ASSERT_EQ(two->size(), 10U);
  EXPECT_EQ(two->front().devices[0].index, 2U);
  HistoryQuery none;
  none.gpu_index = 7;
  EXPECT_TRUE(read_history(*db_, none)->empty());
}

TEST_F(HistoryReaderTest, EmptyRangeAndCounts) {
  HistoryQuery later;
  later.since_ms = 20'001;
  EXPECT_TRUE(read_history(*db_, later)->empty());
  auto counts = count_history(*db_);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->gpu_samples, 30);
  EXPECT_EQ(counts->gpus, 3);
  EXPECT_EQ(counts->first_ms, 10'000);
  EXPECT_EQ(counts->last_ms, 19'000);
}

TEST(HistoryProcessSummaries, PeakMemoryFirstAndLastSeenPerProcess) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("p.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  {
    HistoryWriter writer(**db);
    for (int i = 0; i < 5; ++i) {
      core::Snapshot snapshot = make_snapshot(1'000 + i * 1000, 2);
      snapshot.devices[0].processes = {core::ProcessSample{100, "train", std::uint64_t(1 + i) << 30}};
      if (i >= 3) snapshot.devices[1].processes = {core::ProcessSample{200, "eval", std::nullopt}};
      writer.add(snapshot, [](std::uint32_t pid) { return std::optional<std::string>(pid == 100 ? "alice" : "bob"); });
    }
    ASSERT_TRUE(writer.flush());
  }
  auto all = read_process_summaries(**db, {});
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2U);
  const auto& train = (*all)[0];
  EXPECT_EQ(train.pid, 100U);
  EXPECT_EQ(train.gpu_index, 0U);
  EXPECT_EQ(train.user, "alice");
  EXPECT_EQ(train.max_used_memory_bytes, 5ULL << 30);
  EXPECT_EQ(train.first_seen_ms, 1'000);
  EXPECT_EQ(train.last_seen_ms, 5'000);
  EXPECT_EQ(train.samples, 5);
  const auto& eval = (*all)[1];
  EXPECT_EQ(eval.gpu_index, 1U);
  EXPECT_FALSE(eval.max_used_memory_bytes.has_value());  // never reported: absent, not 0
  EXPECT_EQ(eval.first_seen_ms, 4'000);

  HistoryQuery early;
  early.until_ms = 2'000;
  auto some = read_process_summaries(**db, early);
  ASSERT_EQ(some->size(), 1U);
  EXPECT_EQ(some->front().max_used_memory_bytes, 2ULL << 30);
}

}  // namespace
}  // namespace gpuwatch::store
