#include "recorder/recorder_thread.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "store/history_reader.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::recorder {
namespace recorder_thread_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using store::testing::at_ms;
using store::testing::make_device;
using store::testing::TempDir;

TimedDevice sample(unsigned gpu, std::int64_t started_ms) {
  return TimedDevice{make_device(gpu, 0.5, 1ULL << 30), at_ms(started_ms)};
}

TEST(GroupSamples, OneSnapshotPerTickWithEachGpuOnce) {
  // Two ticks of three GPUs, finishing out of order, a few ms apart.
  std::vector<TimedDevice> samples = {sample(1, 1'002), sample(0, 1'000), sample(2, 1'005),
                                      sample(2, 2'004), sample(0, 2'001), sample(1, 2'000)};
  auto snapshots = group_samples(samples, 500ms);
  ASSERT_EQ(snapshots.size(), 2U);
  EXPECT_EQ(store::to_unix_ms(snapshots[0].timestamp), 1'000);
  EXPECT_EQ(store::to_unix_ms(snapshots[1].timestamp), 2'000);
  for (const auto& snapshot : snapshots) {
    ASSERT_EQ(snapshot.devices.size(), 3U);
    EXPECT_EQ(snapshot.device_count, 3U);
    for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(snapshot.devices[i].index, i) << "in index order";
  }
}

TEST(GroupSamples, ASameGpuAgainOrALateSampleStartsANewSnapshot) {
  // GPU 0 twice within the window (a short interval) and GPU 1 late (its call hung).
  std::vector<TimedDevice> samples = {sample(0, 1'000), sample(0, 1'100), sample(1, 1'050), sample(1, 9'000)};
  auto snapshots = group_samples(samples, 500ms);
  ASSERT_EQ(snapshots.size(), 3U);
  EXPECT_EQ(snapshots[0].devices.size(), 2U);  // 0 @1000 with 1 @1050
  EXPECT_EQ(snapshots[1].devices.size(), 1U);  // 0 @1100
  EXPECT_EQ(store::to_unix_ms(snapshots[2].timestamp), 9'000);
  EXPECT_TRUE(group_samples({}, 500ms).empty());
}

TEST(LiveRecorder, WritesWhatWasPushedOnStop) {
  TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  StoragePlan plan;
  plan.flush_interval = 1h;  // nothing is due: only stop() writes
  LiveRecorder recorder(std::move(*db), plan, 1000ms);
  recorder.start();
  const std::int64_t now_ms = store::to_unix_ms(std::chrono::system_clock::now());
  for (int tick = 0; tick < 3; ++tick) {
    for (unsigned gpu = 0; gpu < 2; ++gpu) recorder.push(make_device(gpu, 0.5, 1ULL << 30), at_ms(now_ms + tick * 1000 + gpu));
  }
  recorder.stop();
  recorder.push(make_device(0, 0.5, 1), at_ms(now_ms + 5000));  // after stop: ignored
  EXPECT_EQ(recorder.written_rows(), 6U);
  EXPECT_EQ(recorder.dropped_samples(), 0U);

  auto reader = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  auto history = store::read_history(**reader, store::HistoryQuery{});
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 3U) << "one snapshot per tick";
  EXPECT_EQ(history->front().devices.size(), 2U);
}

TEST(LiveRecorder, AFullQueueDropsTheOldest) {
  TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  LiveRecorder recorder(std::move(*db), StoragePlan{}, 1000ms, /*max_queued=*/4);  // not started: nothing drains
  for (int i = 0; i < 10; ++i) recorder.push(make_device(0, 0.5, 1), at_ms(1'000 + i * 1000));
  EXPECT_EQ(recorder.dropped_samples(), 6U);
  recorder.stop();
}

TEST(OpenLiveRecorder, NoRecordAndBadFlags) {
  StorageArgs args;
  auto off = open_live_recorder(args, /*no_record=*/true, 1000ms);
  ASSERT_TRUE(off);
  EXPECT_EQ(*off, nullptr);
  args.db = "/tmp/x.db";
  EXPECT_FALSE(open_live_recorder(args, true, 1000ms)) << "--db with --no-record";
  StorageArgs bad;
  bad.retain_raw = "soon";
  auto failed = open_live_recorder(bad, false, 1000ms);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("--retain-raw"), std::string::npos);
}

TEST(OpenLiveRecorder, AnUnwritableExplicitDbIsAnErrorButTheDefaultOnlyWarns) {
  TempDir dir;
  StorageArgs args;
  args.db = dir.file("not-a-folder") + "/sub/history.db";
  std::ofstream(dir.file("not-a-folder")) << "a file where the folder should be\n";
  auto failed = open_live_recorder(args, false, 1000ms);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, 1);

  args.db.clear();
  const char* saved_state = std::getenv("STATE_DIRECTORY");
  const char* saved_xdg = std::getenv("XDG_STATE_HOME");
  std::string saved_state_copy = saved_state ? saved_state : "", saved_xdg_copy = saved_xdg ? saved_xdg : "";
  unsetenv("STATE_DIRECTORY");
  setenv("XDG_STATE_HOME", dir.file("not-a-folder").c_str(), 1);  // the default lies under a file
  auto warned = open_live_recorder(args, false, 1000ms);
  if (saved_xdg) setenv("XDG_STATE_HOME", saved_xdg_copy.c_str(), 1); else unsetenv("XDG_STATE_HOME");
  if (saved_state) setenv("STATE_DIRECTORY", saved_state_copy.c_str(), 1);
  ASSERT_TRUE(warned) << warned.error().message;
  EXPECT_EQ(*warned, nullptr) << "serving goes on without recording";
}

}  // namespace recorder_thread_test
}  // namespace gpuwatch::recorder
