// Continuity (issue 23): which recorded window primes a live diagnosis, and that a primed engine
// has the ongoing problems at once.
#include "history/live_priming.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "store/history_writer.hpp"
#include "unit/diagnose/sim_feed.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::history {
namespace live_priming_test {  // this test file's helpers (unity builds: no clash with another file's)

using diagnose::testing::at_s;
using diagnose::testing::SimFeed;

constexpr std::int64_t kNowMs = 1'790'000'000'000;
constexpr std::int64_t kMinuteMs = 60'000;

store::GpuRecord recorded_gpu(unsigned index, std::optional<std::string> uuid, std::int64_t last_seen_ms) {
  store::GpuRecord gpu;
  gpu.id = index + 1;
  gpu.index = index;
  gpu.uuid = std::move(uuid);
  gpu.last_seen_ms = last_seen_ms;
  return gpu;
}

// Live identities as sampler::gpu_identities gives them: index and UUID.
core::Snapshot live_gpus(std::vector<std::string> uuids) {
  core::Snapshot live;
  for (unsigned i = 0; i < uuids.size(); ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(core::FieldId::Uuid) = core::FieldReading::of(uuids[i]);
    live.devices.push_back(std::move(d));
  }
  live.device_count = static_cast<unsigned>(uuids.size());
  return live;
}

TEST(PrimingWindow, IsTheLastTenMinutesUpToNowWhenThisNodeRecordedRecently) {
  const auto choice = choose_priming_window({recorded_gpu(0, "GPU-a", kNowMs - 20'000), recorded_gpu(1, "GPU-b", kNowMs - 20'000)},
                                            live_gpus({"GPU-a", "GPU-b"}), kNowMs);
  ASSERT_TRUE(choice.window) << choice.skipped;
  EXPECT_EQ(choice.window->until_ms, kNowMs);  // never past now: a later stamp would stall the live engine
  EXPECT_EQ(choice.window->since_ms, kNowMs - 10 * kMinuteMs);
  namespace t = diagnose::thresholds;  // a whole long window, and the hysteresis before it
  EXPECT_GE(kPrimingSpan.count(), static_cast<std::int64_t>((t::kLongWindowS + t::kClearAfterS) * 1000));
}

TEST(PrimingWindow, NothingWithoutHistory) {
  const auto choice = choose_priming_window({}, live_gpus({"GPU-a"}), kNowMs);
  EXPECT_FALSE(choice.window);
  EXPECT_EQ(choice.skipped, "no history");
}

TEST(PrimingWindow, NothingFromAStaleHistory) {
  // The engine's longest window (310 s) back is still fresh; a sample older says nothing about now.
  const std::int64_t edge = kNowMs - kPrimingMaxAge.count();
  EXPECT_TRUE(choose_priming_window({recorded_gpu(0, "GPU-a", edge)}, live_gpus({"GPU-a"}), kNowMs).window);
  const auto stale = choose_priming_window({recorded_gpu(0, "GPU-a", edge - 1)}, live_gpus({"GPU-a"}), kNowMs);
  EXPECT_FALSE(stale.window);
  EXPECT_NE(stale.skipped.find("min old"), std::string::npos) << stale.skipped;
  const auto days = choose_priming_window({recorded_gpu(0, "GPU-a", kNowMs - 3 * 86'400'000)}, live_gpus({"GPU-a"}), kNowMs);
  EXPECT_FALSE(days.window);
  EXPECT_NE(days.skipped.find("3 days old"), std::string::npos) << days.skipped;
}

TEST(PrimingWindow, NothingFromAnotherNodesHistory) {
  const auto other = choose_priming_window({recorded_gpu(0, "GPU-elsewhere", kNowMs - 5000)}, live_gpus({"GPU-a"}), kNowMs);
  EXPECT_FALSE(other.window);
  EXPECT_NE(other.skipped.find("another node"), std::string::npos) << other.skipped;
  EXPECT_NE(other.skipped.find("GPU-elsewhere"), std::string::npos) << other.skipped;
  // A GPU this node does not have.
  const auto more = choose_priming_window({recorded_gpu(0, "GPU-a", kNowMs - 5000), recorded_gpu(3, "GPU-d", kNowMs - 5000)},
                                          live_gpus({"GPU-a"}), kNowMs);
  EXPECT_FALSE(more.window);
  EXPECT_NE(more.skipped.find("another node"), std::string::npos) << more.skipped;
}

TEST(PrimingWindow, OnlyTheGpusRecordedInTheWindowMustMatch) {
  // GPU 1 was swapped an hour ago: its old UUID is outside the window, its new one matches.
  const auto choice = choose_priming_window(
      {recorded_gpu(0, "GPU-a", kNowMs - 2000), recorded_gpu(1, "GPU-old", kNowMs - 60 * kMinuteMs),
       [] { auto g = recorded_gpu(1, "GPU-b", kNowMs - 2000); g.id = 9; return g; }()},
      live_gpus({"GPU-a", "GPU-b"}), kNowMs);
  EXPECT_TRUE(choice.window) << choice.skipped;
}

TEST(PrimingWindow, UnknownIdentitiesDoNotBlock) {
  // No UUID recorded (an imported log), or none read live (NVML did not answer): by index only.
  EXPECT_TRUE(choose_priming_window({recorded_gpu(0, std::nullopt, kNowMs - 2000)}, live_gpus({"GPU-a"}), kNowMs).window);
  core::Snapshot unread;
  unread.devices.emplace_back();
  unread.devices.back().state = core::DeviceState::TimedOut;
  EXPECT_TRUE(choose_priming_window({recorded_gpu(0, "GPU-a", kNowMs - 2000)}, unread, kNowMs).window);
  EXPECT_TRUE(choose_priming_window({recorded_gpu(0, "GPU-a", kNowMs - 2000)}, core::Snapshot{}, kNowMs).window);
}

// A recorded `demo` node (GPU 3 throttles, GPU 6 leaks) up to scenario time kEnd.
class PrimingFromHistory : public ::testing::Test {
 protected:
  static constexpr int kEnd = 1120;   // both problems are under way (and began minutes ago)
  static constexpr int kStart = 100;  // 17 minutes recorded: more than the window reads

  void SetUp() override {
    auto opened = store::HistoryDatabase::open(dir_.file("h.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    store::HistoryWriter writer(*db_);
    for (int t = kStart; t <= kEnd; ++t) {
      writer.add(feed_.snapshot(t));
      if (t % 60 == 0) ASSERT_TRUE(writer.flush());
    }
    ASSERT_TRUE(writer.flush());
  }

  static bool has(const std::vector<diagnose::Finding>& findings, const std::string& kind, unsigned gpu) {
    return std::any_of(findings.begin(), findings.end(), [&](const diagnose::Finding& f) {
      return f.kind == kind && std::find(f.gpus.begin(), f.gpus.end(), gpu) != f.gpus.end();
    });
  }

  SimFeed feed_ = SimFeed::builtin("demo");
  store::testing::TempDir dir_;
  std::unique_ptr<store::HistoryDatabase> db_;
};

TEST_F(PrimingFromHistory, ARestartSeesTheOngoingProblemsAtOnce) {
  diagnose::Diagnoser diagnoser;
  const auto priming = prime_diagnoser(*db_, feed_.snapshot(kEnd + 3), at_s(kEnd + 3), diagnoser);
  ASSERT_TRUE(priming.window) << priming.skipped;
  // Bounded: the last 10 minutes only, not the 17 recorded.
  EXPECT_EQ(priming.snapshots, 600u - 3u + 1u);
  EXPECT_EQ(diagnoser.samples_observed(), priming.snapshots * feed_.gpu_count());  // GPU-samples
  EXPECT_TRUE(has(diagnoser.findings(), "thermal_throttle", 3));
  EXPECT_TRUE(has(diagnoser.findings(), "memory_leak", 6));
  EXPECT_NE(describe_priming(priming, diagnoser).find("continues from the recorded history"), std::string::npos);
  // The live samples go on from there: the problems stay.
  for (int t = kEnd + 4; t <= kEnd + 10; ++t) diagnoser.observe(feed_.snapshot(t));
  EXPECT_TRUE(has(diagnoser.findings(), "memory_leak", 6));
  EXPECT_TRUE(has(diagnoser.findings(), "thermal_throttle", 3));
}

TEST_F(PrimingFromHistory, NothingFromAStaleOrForeignHistory) {
  diagnose::Diagnoser stale;
  const auto late = prime_diagnoser(*db_, feed_.snapshot(kEnd + 400), at_s(kEnd + 400), stale);
  EXPECT_FALSE(late.window);
  EXPECT_EQ(stale.samples_observed(), 0u);
  EXPECT_NE(describe_priming(late, stale).find("starts afresh"), std::string::npos);

  core::Snapshot elsewhere = feed_.snapshot(kEnd + 3);
  elsewhere.devices[0].get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-another-node"));
  diagnose::Diagnoser foreign;
  const auto other = prime_diagnoser(*db_, elsewhere, at_s(kEnd + 3), foreign);
  EXPECT_FALSE(other.window);
  EXPECT_EQ(foreign.samples_observed(), 0u);
  EXPECT_NE(other.skipped.find("another node"), std::string::npos) << other.skipped;
}

TEST(PrimingFromFile, NoDatabaseIsNothingAndSaysNothing) {
  store::testing::TempDir dir;
  diagnose::Diagnoser diagnoser;
  const auto priming = prime_diagnoser(dir.file("absent.db"), core::Snapshot{}, at_s(0), diagnoser);
  EXPECT_FALSE(priming.window);
  EXPECT_EQ(diagnoser.samples_observed(), 0u);
  EXPECT_EQ(describe_priming(priming, diagnoser), "");
  EXPECT_FALSE(prime_diagnoser(std::string(), core::Snapshot{}, at_s(0), diagnoser).window);
}

}  // namespace live_priming_test
}  // namespace gpuwatch::history
