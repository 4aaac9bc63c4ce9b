#include "exporter/http/connection_registry.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gpuwatch::exporter::http {
namespace {

using Clock = ConnectionRegistry::Clock;

TEST(ConnectionRegistry, AdmitsUpToTheCap) {
  ConnectionRegistry registry(2);
  const auto t0 = Clock::now();
  EXPECT_TRUE(registry.admit(t0, Phase::Idle, {}));
  EXPECT_TRUE(registry.admit(t0, Phase::Idle, {}));
  EXPECT_EQ(registry.size(), 2u);
}

TEST(ConnectionRegistry, AtTheCapTheOldestWaitingConnectionIsEvicted) {
  ConnectionRegistry registry(3);
  const auto t0 = Clock::now();
  std::vector<int> closed;
  auto a = registry.admit(t0, Phase::Idle, [&] { closed.push_back(1); });
  auto b = registry.admit(t0 + std::chrono::seconds(1), Phase::Idle, [&] { closed.push_back(2); });
  auto c = registry.admit(t0 + std::chrono::seconds(2), Phase::Idle, [&] { closed.push_back(3); });
  ASSERT_TRUE(a && b && c);
  registry.set_phase(*a, Phase::Streaming, t0 + std::chrono::seconds(3));   // busy: never evicted
  registry.set_phase(*c, Phase::Reading, t0 + std::chrono::seconds(2));     // trickling headers
  auto d = registry.admit(t0 + std::chrono::seconds(4), Phase::Idle, [&] { closed.push_back(4); });
  ASSERT_TRUE(d);
  EXPECT_EQ(closed, std::vector<int>{2});  // b waited longest (since t0 + 1 s)
  EXPECT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry.evictions(), 1u);
  EXPECT_FALSE(registry.phase(*b));
  registry.remove(*b);  // the evicted connection's own removal is a no-op
  EXPECT_EQ(registry.size(), 3u);
}

TEST(ConnectionRegistry, RefusesWhenEveryConnectionIsBusy) {
  ConnectionRegistry registry(2);
  const auto t0 = Clock::now();
  auto a = registry.admit(t0, Phase::Answering, {});
  auto b = registry.admit(t0, Phase::Streaming, {});
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(registry.admit(t0, Phase::Idle, {}));
  EXPECT_EQ(registry.refusals(), 1u);
  // One being refused is tracked for close_all, but does not count against the cap.
  bool refused_closed = false;
  registry.track(t0, [&] { refused_closed = true; });
  EXPECT_EQ(registry.size(), 2u);
  registry.remove(*a);
  EXPECT_TRUE(registry.admit(t0, Phase::Idle, {}));
  registry.close_all();
  EXPECT_TRUE(refused_closed);
  EXPECT_EQ(registry.size(), 0u);
}

TEST(ConnectionRegistry, EvictablePhases) {
  EXPECT_TRUE(is_evictable(Phase::Idle));
  EXPECT_TRUE(is_evictable(Phase::Reading));
  EXPECT_TRUE(is_evictable(Phase::Handshake));
  EXPECT_FALSE(is_evictable(Phase::Answering));
  EXPECT_FALSE(is_evictable(Phase::Streaming));
}

}  // namespace
}  // namespace gpuwatch::exporter::http
