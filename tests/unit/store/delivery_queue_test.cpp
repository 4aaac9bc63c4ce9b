#include "store/delivery_queue.hpp"

#include <gtest/gtest.h>

#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace delivery_queue_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::TempDir;

constexpr std::int64_t kT0 = 1'780'000'000'000;

TEST(DeliveryQueue, PendingRowsSurviveReopeningTheFile) {
  TempDir dir;
  {
    auto queue = DeliveryQueue::open(dir.file("h.db"));
    ASSERT_TRUE(queue) << queue.error().message;
    auto a = (*queue)->enqueue("slack", "{\"n\":1}", kT0);
    auto b = (*queue)->enqueue("slack", "{\"n\":2}", kT0 + 1);
    auto c = (*queue)->enqueue("mail", "{\"n\":3}", kT0 + 2);
    ASSERT_TRUE(a && b && c);
    ASSERT_TRUE((*queue)->mark_sending(*a, kT0 + 10));
    ASSERT_TRUE((*queue)->mark_delivered(*a, kT0 + 20, 200));
  }
  auto queue = DeliveryQueue::open(dir.file("h.db"));
  ASSERT_TRUE(queue);
  auto due = (*queue)->due("slack", kT0 + 100, 10);
  ASSERT_TRUE(due);
  ASSERT_EQ(due->size(), 1u);  // the delivered one never comes back
  EXPECT_EQ((*due)[0].payload, "{\"n\":2}");
  EXPECT_EQ((*due)[0].attempts, 0);
  EXPECT_EQ(*(*queue)->pending_count(""), 2);
  EXPECT_EQ(*(*queue)->pending_count("mail"), 1);
  auto rows = (*queue)->rows("slack", 10);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].delivered_ms, kT0 + 20);
  EXPECT_EQ((*rows)[1].status, 200);
  EXPECT_EQ((*rows)[1].attempts, 1);
}

TEST(DeliveryQueue, RetryWaitsUntilItsTimeAndFailedRowsStop) {
  TempDir dir;
  auto queue = DeliveryQueue::open(dir.file("h.db"));
  ASSERT_TRUE(queue);
  auto id = (*queue)->enqueue("hook", "{}", kT0);
  ASSERT_TRUE(id);
  ASSERT_TRUE((*queue)->mark_sending(*id, kT0));
  EXPECT_TRUE((*queue)->due("hook", kT0 + 1, 10)->empty());  // an attempt is under way
  ASSERT_TRUE((*queue)->mark_retry(*id, kT0 + 4000, 503, "HTTP 503"));
  EXPECT_TRUE((*queue)->due("hook", kT0 + 3999, 10)->empty());
  EXPECT_EQ(*(*queue)->next_due_ms("hook"), kT0 + 4000);
  auto due = (*queue)->due("hook", kT0 + 4000, 10);
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].last_error, "HTTP 503");
  EXPECT_EQ((*due)[0].status, 503);
  ASSERT_TRUE((*queue)->mark_failed(*id, kT0 + 5000, std::nullopt, "given up"));
  EXPECT_TRUE((*queue)->due("hook", kT0 + 999999, 10)->empty());
  EXPECT_FALSE(*(*queue)->next_due_ms("hook"));
  EXPECT_EQ(*(*queue)->pending_count("hook"), 0);
  // Pruning removes finished rows older than the cut only.
  auto fresh = (*queue)->enqueue("hook", "{}", kT0 + 6000);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(*(*queue)->prune(kT0 + 5001), 1);
  EXPECT_EQ((*queue)->rows("", 10)->size(), 1u);
}

TEST(DeliveryQueue, AnAttemptLeftUnderWayIsFoundAtTheNextOpen) {
  TempDir dir;
  std::int64_t id = 0;
  {
    auto queue = DeliveryQueue::open(dir.file("h.db"));
    ASSERT_TRUE(queue);
    id = *(*queue)->enqueue("hook", "{}", kT0);
    ASSERT_TRUE((*queue)->mark_sending(id, kT0 + 5));  // then the process dies
  }
  auto queue = DeliveryQueue::open(dir.file("h.db"));
  auto interrupted = (*queue)->interrupted();
  ASSERT_TRUE(interrupted);
  ASSERT_EQ(interrupted->size(), 1u);
  EXPECT_EQ((*interrupted)[0].id, id);
  EXPECT_EQ((*interrupted)[0].sending_ms, kT0 + 5);
  EXPECT_TRUE((*queue)->due("hook", kT0 + 10, 10)->empty());
}

}  // namespace delivery_queue_test
}  // namespace gpuwatch::store
