#include "exporter/history_window.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuwatch::exporter {
namespace history_window_test {  // this test file's helpers (unity builds: no clash with another file's)

live::HistoryRow row(unsigned gpu, double t) {
  live::HistoryRow r;
  r.gpu = gpu;
  r.timestamp_s = t;
  r.up = true;
  r.values.fill(std::nan(""));
  return r;
}

std::vector<std::pair<unsigned, double>> shape(const std::vector<live::HistoryRow>& rows) {
  std::vector<std::pair<unsigned, double>> out;
  for (const auto& r : rows) out.emplace_back(r.gpu, r.timestamp_s);
  return out;
}

// A ring of 10 rows per GPU at 1 s holding GPU 0's samples from FIRST to 200.
std::shared_ptr<live::SampleHistory> ring_from(double first) {
  auto ring = std::make_shared<live::SampleHistory>(10);
  for (double t = first; t <= 200; t += 1) ring->push(row(0, t));
  return ring;
}

// A store of 5 s buckets from 100 on; counts how often it was asked.
struct FakeStore {
  int asked = 0;
  bool fails = false;
  StoredHistoryReader reader() {
    return [this](const StoredHistoryQuery& q) -> core::Result<StoredHistory> {
      ++asked;
      if (fails) return core::make_error("the store is busy");
      StoredHistory out{{}, 5.0};
      for (double t = 100; t + 5 <= q.until_s; t += 5)
        if (t >= q.since_s - 5) out.rows.push_back(row(0, t));
      return out;
    };
  }
};

HistoryWindowQuery query(std::optional<double> seconds) {
  return HistoryWindowQuery{seconds, 0u, {0}, 200.5, 1.0, 1000};
}

TEST(HistoryWindow, AWindowTheRingReachesIsTheRingsAlone) {
  FakeStore store;
  const auto window = history_window(*ring_from(150), store.reader(), query(5.0));
  EXPECT_EQ(store.asked, 0);
  EXPECT_EQ(window.origin.source, "memory");
  EXPECT_EQ(shape(window.rows), (std::vector<std::pair<unsigned, double>>{{0, 196}, {0, 197}, {0, 198}, {0, 199}, {0, 200}}));
  // Without ?seconds=: everything the ring holds, the store never asked.
  EXPECT_EQ(history_window(*ring_from(150), store.reader(), query(std::nullopt)).rows.size(), 10u);
  EXPECT_EQ(store.asked, 0);
}

TEST(HistoryWindow, BeyondTheRingsSpanTheStoreAnswers) {
  FakeStore store;
  const auto window = history_window(*ring_from(150), store.reader(), query(60.0));  // span: 10 s
  EXPECT_EQ(store.asked, 1);
  EXPECT_EQ(window.origin.source, "store");
  EXPECT_EQ(window.origin.resolution_s, 5.0);
  ASSERT_FALSE(window.rows.empty());
  EXPECT_EQ(window.rows.front().timestamp_s, 140.0);
}

TEST(HistoryWindow, AStoreThatFailsLeavesTheRingsRowsAndSaysWhy) {
  FakeStore store;
  store.fails = true;
  const auto window = history_window(*ring_from(150), store.reader(), query(60.0));
  EXPECT_EQ(window.origin.source, "memory");
  EXPECT_EQ(window.origin.store_error, "the store is busy");
  EXPECT_EQ(window.rows.size(), 10u);
  // No store at all (serve --no-record): the ring, no error.
  const auto alone = history_window(*ring_from(150), nullptr, query(60.0));
  EXPECT_FALSE(alone.origin.store_error);
  EXPECT_EQ(alone.rows.size(), 10u);
}

TEST(HistoryWindow, InsideTheSpanARingStartedRecentlyGetsTheStoresOlderRowsFirst) {
  FakeStore store;
  const auto window = history_window(*ring_from(197), store.reader(), query(9.0));  // from 191.5; the ring from 197
  EXPECT_EQ(store.asked, 1);
  EXPECT_EQ(window.origin.source, "store");
  EXPECT_EQ(shape(window.rows),
            (std::vector<std::pair<unsigned, double>>{{0, 190}, {0, 197}, {0, 198}, {0, 199}, {0, 200}}));
}

}  // namespace history_window_test
}  // namespace gpuwatch::exporter
