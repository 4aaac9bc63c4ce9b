#include "recorder/storage.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "store/history_reader.hpp"
#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::recorder {
namespace {

using namespace std::chrono_literals;
using store::testing::make_snapshot;
using store::testing::TempDir;

TEST(StorageArgs, DefaultsAndForever) {
  auto plan = parse_storage_args(StorageArgs{});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->flush_interval, 5s);
  EXPECT_EQ(plan->retention.raw, std::chrono::hours(24 * 7));
  EXPECT_EQ(plan->retention.minute, std::chrono::hours(24 * 90));
  EXPECT_EQ(plan->retention.hour.count(), 0);  // forever
  EXPECT_EQ(plan->retention.max_size_bytes, 0);

  StorageArgs args;
  args.flush_interval = "500ms";
  args.retain_1h = "365d";
  args.max_size = "2G";
  plan = parse_storage_args(args);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->flush_interval, 500ms);
  EXPECT_EQ(plan->retention.hour, std::chrono::hours(24 * 365));
  EXPECT_EQ(plan->retention.max_size_bytes, 2LL << 30);
}

TEST(StorageArgs, ErrorsNameTheOption) {
  for (auto [field, option] : {std::pair{&StorageArgs::flush_interval, "--flush-interval"},
                               std::pair{&StorageArgs::retain_raw, "--retain-raw"},
                               std::pair{&StorageArgs::retain_1m, "--retain-1m"},
                               std::pair{&StorageArgs::retain_1h, "--retain-1h"},
                               std::pair{&StorageArgs::max_size, "--max-size"}}) {
    StorageArgs args;
    args.*field = "soon";
    auto plan = parse_storage_args(args);
    ASSERT_FALSE(plan) << option;
    EXPECT_EQ(plan.error().message.rfind(option, 0), 0U) << plan.error().message;
  }
}

TEST(RecordedFields, IdentityAndEveryColumn) {
  auto fields = recorded_fields();
  for (auto id : {core::FieldId::Uuid, core::FieldId::PciBusId, core::FieldId::UtilizationGpu, core::FieldId::Pstate}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), id), fields.end());
  }
}

TEST(DatabaseRecorder, FlushesWhenDueAndCountsRows) {
  TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  StoragePlan plan;
  plan.flush_interval = 1h;
  DatabaseRecorder recorder(**db, plan, "test");
  const std::int64_t now_ms = store::to_unix_ms(std::chrono::system_clock::now());  // retention keeps it
  recorder.add(make_snapshot(now_ms - 2'000, 2));
  recorder.add(make_snapshot(now_ms - 1'000, 2));
  recorder.flush_if_due(std::chrono::steady_clock::now());  // not due within the hour
  EXPECT_EQ(recorder.pending_rows(), 4U);
  EXPECT_EQ(recorder.written_rows(), 0U);
  recorder.flush_if_due(std::chrono::steady_clock::now() + 2h);
  EXPECT_EQ(recorder.pending_rows(), 0U);
  EXPECT_EQ(recorder.written_rows(), 4U);
  EXPECT_FALSE(recorder.failing());
  auto counts = store::count_history(**db);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->gpu_samples, 4);
}

// record, serve and run keep each process's command line with the samples (issue: history and
// report named every training job `python`); --no-record-commands keeps none.
TEST(DatabaseRecorder, KeepsCommandLinesUnlessTold) {
  for (bool no_record_commands : {false, true}) {
    TempDir dir;
    auto db = store::HistoryDatabase::open(dir.file("history.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(db) << db.error().message;
    StorageArgs args;
    args.no_record_commands = no_record_commands;
    auto plan = parse_storage_args(args);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(plan->record_commands, !no_record_commands);
    DatabaseRecorder recorder(**db, *plan, "test");
    int asked = 0;
    recorder.set_command_lookup([&](std::uint32_t pid) -> std::optional<std::string> {
      ++asked;
      return pid == 4242 ? std::optional<std::string>("python eval_server.py --port 8500") : std::nullopt;
    });
    const std::int64_t now_ms = store::to_unix_ms(std::chrono::system_clock::now());
    for (std::int64_t t : {now_ms - 2'000, now_ms - 1'000}) {
      auto snapshot = make_snapshot(t, 1);
      snapshot.devices[0].processes = {core::ProcessSample{4242, "python", std::uint64_t{1} << 30}};
      recorder.add(snapshot);
    }
    recorder.flush();
    ASSERT_FALSE(recorder.failing());
    auto processes = store::read_process_summaries(**db, {});
    ASSERT_TRUE(processes) << processes.error().message;
    ASSERT_EQ(processes->size(), 1U);
    EXPECT_EQ((*processes)[0].name, "python");
    if (no_record_commands) {
      EXPECT_EQ(asked, 0);  // /proc is not even read
      EXPECT_FALSE((*processes)[0].command);
      EXPECT_EQ((*db)->sql().execAndGet("SELECT count(*) FROM process_commands").getInt(), 0);
    } else {
      EXPECT_EQ((*processes)[0].command, "python eval_server.py --port 8500");
      EXPECT_EQ((*db)->sql().execAndGet("SELECT count(*) FROM process_commands").getInt(), 1);  // one span
    }
  }
}

}  // namespace
}  // namespace gpuwatch::recorder
