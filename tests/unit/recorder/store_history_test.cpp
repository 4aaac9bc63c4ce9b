#include "recorder/store_history.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::recorder {
namespace {

using namespace std::chrono_literals;
using store::testing::make_snapshot;
using store::testing::TempDir;

TEST(StoreHistoryReader, AnswersHistoryRowsInBuckets) {
  TempDir dir;
  {
    auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(db) << db.error().message;
    store::HistoryWriter writer(**db);
    for (int i = 0; i < 10; ++i) writer.add(make_snapshot(100'000 + i * 1000, 2));  // t = 100 s .. 109 s
    ASSERT_TRUE(writer.flush());
  }
  auto read = make_store_history_reader(dir.file("history.db"), 2s);
  auto answer = read(exporter::StoredHistoryQuery{0, 1000, 1, 100, 1.0});  // 1000 s in at most 100 points
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->resolution_s, 10.0);
  ASSERT_EQ(answer->rows.size(), 1U);  // GPU 1 only, one 10 s bucket
  const live::HistoryRow& row = answer->rows[0];
  EXPECT_EQ(row.gpu, 1U);
  EXPECT_EQ(row.timestamp_s, 100.0);
  EXPECT_TRUE(row.up);
  EXPECT_FALSE(row.processes.has_value());
  EXPECT_NEAR(row.values[0], 0.26, 1e-9);  // utilization_gpu_ratio of GPU 1
  EXPECT_TRUE(std::isnan(row.values[8])) << "power_draw_w: unsupported, absent";
}

TEST(StoreHistoryReader, NoDatabaseIsAnError) {
  TempDir dir;
  auto read = make_store_history_reader(dir.file("none.db"), 1s);
  EXPECT_FALSE(read(exporter::StoredHistoryQuery{0, 1000, std::nullopt, 100, 1.0}));
}

}  // namespace
}  // namespace gpuwatch::recorder
