#include "store/read_deadline.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::store {
namespace read_deadline_test {

// A query that would run for minutes: 2e9 rows of a recursive CTE.
constexpr const char* kEndless =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) FROM c";

TEST(ReadDeadline, InterruptsAnEndlessQueryOnceTheBudgetHasPassed) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  ReadDeadline deadline(db.getHandle(), std::chrono::milliseconds(100), nullptr);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(db.execAndGet(kEndless), SQLite::Exception);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_TRUE(deadline.expired());
}

TEST(ReadDeadline, ACancelFlagInterruptsAtOnceAndExpiredStaysFalse) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  std::atomic<bool> cancelled{true};
  ReadDeadline deadline(db.getHandle(), std::chrono::milliseconds(0), &cancelled);
  EXPECT_THROW(db.execAndGet(kEndless), SQLite::Exception);
  EXPECT_FALSE(deadline.expired());
}

TEST(ReadDeadline, AQuickQueryWithinTheBudgetAndQueriesAfterItAreUntouched) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE);
  {
    ReadDeadline deadline(db.getHandle(), std::chrono::seconds(10), nullptr);
    EXPECT_EQ(db.execAndGet("SELECT 41 + 1").getInt(), 42);
    EXPECT_FALSE(deadline.expired());
  }
  EXPECT_EQ(db.execAndGet("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
                          "SELECT count(*) FROM c")
                .getInt(),
            100000);
}

}  // namespace read_deadline_test
}  // namespace gpuwatch::store
