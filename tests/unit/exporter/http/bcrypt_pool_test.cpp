#include "exporter/http/bcrypt_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace gpuwatch::exporter {
namespace bcrypt_pool_test {  // this test file's helpers (unity builds)

using namespace std::chrono_literals;

// A hash that blocks until released, so a test controls when the pool's threads are busy.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
  int entered = 0;
  void release() {
    std::lock_guard lock(mutex);
    open = true;
    changed.notify_all();
  }
  bool wait_entered(int count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 5s, [&] { return entered >= count; });
  }
};

BcryptPool::Hash gated(const std::shared_ptr<Gate>& gate) {
  return [gate](const std::string& password, const std::string& hash) {
    std::unique_lock lock(gate->mutex);
    ++gate->entered;
    gate->changed.notify_all();
    gate->changed.wait(lock, [&] { return gate->open; });
    return password == hash;
  };
}

// Waits (bounded) until COUNT reaches WANT.
bool reaches(const std::atomic<int>& count, int want) {
  for (int i = 0; i < 500 && count.load() < want; ++i) std::this_thread::sleep_for(10ms);
  return count.load() >= want;
}

TEST(BcryptPool, RunsChecksAndReportsTheirResult) {
  BcryptPool pool(2, 4, [](const std::string& password, const std::string& hash) { return password == hash; });
  std::atomic<int> matched{0}, failed{0};
  ASSERT_TRUE(pool.submit("a", "a", [&](bool ok) { ++(ok ? matched : failed); }));
  ASSERT_TRUE(pool.submit("a", "b", [&](bool ok) { ++(ok ? matched : failed); }));
  EXPECT_TRUE(reaches(matched, 1));
  EXPECT_TRUE(reaches(failed, 1));
}

TEST(BcryptPool, RefusesAtOnceWhenItsQueueIsFull) {
  auto gate = std::make_shared<Gate>();
  BcryptPool pool(/*threads=*/2, /*max_queued=*/3, gated(gate));
  std::atomic<int> done{0};
  auto count = [&](bool) { ++done; };
  ASSERT_TRUE(pool.submit("x", "x", count));
  ASSERT_TRUE(pool.submit("x", "x", count));
  ASSERT_TRUE(gate->wait_entered(2)) << "both threads hash";
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(pool.submit("x", "x", count)) << i;
  EXPECT_EQ(pool.queued(), 3u);
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(pool.submit("x", "x", count)) << "the queue holds 3: the 4th waiting check is refused";
  EXPECT_LT(std::chrono::steady_clock::now() - before, 100ms) << "refused without waiting";
  gate->release();
  EXPECT_TRUE(reaches(done, 5)) << "the 2 running and the 3 queued all finish";
  EXPECT_EQ(done.load(), 5);
}

TEST(BcryptPool, CloseNeverWaitsForAHashInProgressAndDropsItsAnswer) {
  auto gate = std::make_shared<Gate>();
  std::atomic<int> done{0};
  {
    BcryptPool pool(1, 4, gated(gate));
    ASSERT_TRUE(pool.submit("x", "x", [&](bool) { ++done; }));
    ASSERT_TRUE(pool.submit("x", "x", [&](bool) { ++done; }));
    ASSERT_TRUE(gate->wait_entered(1));
    const auto before = std::chrono::steady_clock::now();
    pool.close();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 100ms) << "close() returned while a hash still runs";
    EXPECT_FALSE(pool.submit("x", "x", [&](bool) { ++done; })) << "a closed pool takes nothing";
  }  // the destructor does not wait either
  gate->release();  // the detached thread finishes its hash and ends
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(done.load(), 0) << "no answer after close(), and the queued check never ran";
  std::lock_guard lock(gate->mutex);
  EXPECT_EQ(gate->entered, 1);
}

}  // namespace bcrypt_pool_test
}  // namespace gpuwatch::exporter
