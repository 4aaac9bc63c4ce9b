// The command line of each GPU process, once per span (store/process_commands.hpp, schema 11),
// and how history and report read it back (store/history_reader.hpp's process summaries).
#include "store/process_commands.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_reader.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "store_fixture.hpp"

namespace gpuwatch::store {
namespace process_commands_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::make_snapshot;
using testing::TempDir;

constexpr const char* kGpu0 = "GPU-00000000";  // make_device(0)'s UUID: the gpus table's key

// Samples of PID 100 (NVML name `python`) on GPU 0 at TIMES, written as `record` writes them.
void write_samples(HistoryDatabase& db, const std::vector<std::int64_t>& times, std::uint32_t pid = 100) {
  HistoryWriter writer(db);
  for (std::int64_t t : times) {
    core::Snapshot snapshot = make_snapshot(t, 1);
    snapshot.devices[0].processes = {core::ProcessSample{pid, "python", std::uint64_t{1} << 30}};
    writer.add(snapshot, [](std::uint32_t) { return std::optional<std::string>("alice"); });
  }
  ASSERT_TRUE(writer.flush());
}

TEST(ProcessCommands, ClipKeepsShortCommandsAndCutsLongOnesOnACharacterBoundary) {
  EXPECT_EQ(clip_command("python train.py"), "python train.py");
  const std::string exact(kMaxCommandBytes, 'x');
  EXPECT_EQ(clip_command(exact), exact);
  const std::string clipped = clip_command(std::string(5000, 'x'));
  EXPECT_EQ(clipped.size(), kMaxCommandBytes);
  EXPECT_EQ(clipped.substr(clipped.size() - 3), "\xE2\x80\xA6");  // ends in "…": it was cut
  // "é" is two bytes: a cut that would fall inside one moves before it.
  std::string accents;
  while (accents.size() < 20) accents += "\xC3\xA9";
  const std::string cut = clip_command(accents, 10);  // 7 bytes of text + "…": 3 whole "é" (6 bytes)
  EXPECT_EQ(cut, "\xC3\xA9\xC3\xA9\xC3\xA9\xE2\x80\xA6");
}

TEST(ProcessCommands, AnUpsertMovesTheEndOfASpanAndAbsentIsNoRow) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 100, 1000, 1000, "python train.py"}}));
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 100, 1000, 5000, "python train.py"}}));
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 100, 1000, 3000, "python train.py"}}));  // a replay
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 101, 1000, 3000, ""}}));  // unknown: never stored as ''
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 102, 1000, 3000, std::string(50'000, 'a')}}));
  auto spans = read_command_spans(**db);
  ASSERT_TRUE(spans) << spans.error().message;
  ASSERT_EQ(spans->size(), 2U);
  EXPECT_EQ((*spans)[0], (CommandSpanRow{kGpu0, 100, 1000, 5000, "python train.py"}));
  EXPECT_EQ((*spans)[1].pid, 102U);
  EXPECT_EQ((*spans)[1].command.size(), kMaxCommandBytes);  // clipped when written, whoever wrote it
  EXPECT_EQ(read_command_spans(**db, 6000)->size(), 0U);     // ended before the range
  EXPECT_EQ(read_command_spans(**db, std::nullopt, 999)->size(), 0U);
}

TEST(ProcessCommands, ProcessSummariesCarryTheCommandAndSplitWhenItChanges) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  write_samples(**db, {1000, 2000, 3000, 4000, 5000, 6000});
  // PID 100 ran train.py, then (PID reuse) eval_server.py; the last sample's command is unknown.
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 100, 1000, 3000, "python train.py"},
                                         {kGpu0, 100, 4000, 5000, "python eval_server.py --port 8500"}}));
  auto processes = read_process_summaries(**db, {});
  ASSERT_TRUE(processes) << processes.error().message;
  ASSERT_EQ(processes->size(), 2U);
  EXPECT_EQ((*processes)[0].name, "python");
  EXPECT_EQ((*processes)[0].command, "python train.py");
  EXPECT_EQ((*processes)[0].first_seen_ms, 1000);
  EXPECT_EQ((*processes)[0].last_seen_ms, 3000);
  EXPECT_EQ((*processes)[1].command, "python eval_server.py --port 8500");
  EXPECT_EQ((*processes)[1].first_seen_ms, 4000);
  EXPECT_EQ((*processes)[1].last_seen_ms, 6000);  // a sample without a known command stays with it
  EXPECT_EQ((*processes)[1].samples, 3);

  HistoryQuery late;
  late.since_ms = 4500;
  auto some = read_process_summaries(**db, late);
  ASSERT_TRUE(some) << some.error().message;
  ASSERT_EQ(some->size(), 1U);
  EXPECT_EQ((*some)[0].command, "python eval_server.py --port 8500");
}

// Command rows go with the raw samples (the process listings they serve are read from those).
TEST(ProcessCommands, RetentionDropsCommandsWithTheRawSamples) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  constexpr std::int64_t kDayMs = 86'400'000;
  const std::int64_t now = 400 * kDayMs;
  ASSERT_TRUE(write_command_spans(**db, {{kGpu0, 100, now - 10 * kDayMs, now - 8 * kDayMs, "python old.py"},
                                         {kGpu0, 200, now - 10 * kDayMs, now - 1 * kDayMs, "python long.py"}}));
  RetentionPolicy policy;  // raw samples: 7 days
  auto pruned = apply_retention(**db, policy, now);
  ASSERT_TRUE(pruned) << pruned.error().message;
  auto spans = read_command_spans(**db);
  ASSERT_TRUE(spans);
  ASSERT_EQ(spans->size(), 1U);  // a span still running within the raw tier is kept whole
  EXPECT_EQ((*spans)[0].command, "python long.py");
}

// A file written before schema 11 (no process_commands) still reads: history and report open
// it read-only and show NVML's name; a recorder opening it migrates it.
TEST(ProcessCommands, AFileFromBeforeSchemaElevenReadsWithoutCommands) {
  TempDir dir;
  const std::string path = dir.file("v10.db");
  {
    auto db = HistoryDatabase::open(path, OpenOptions{.durable = false});
    ASSERT_TRUE(db) << db.error().message;
    write_samples(**db, {1000, 2000});
    (*db)->sql().exec("DROP TABLE process_commands");
    (*db)->sql().exec("PRAGMA user_version = 10");
  }
  {
    auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
    ASSERT_TRUE(reader) << reader.error().message;
    EXPECT_EQ((*reader)->schema_version(), 10);
    auto processes = read_process_summaries(**reader, {});
    ASSERT_TRUE(processes) << processes.error().message;
    ASSERT_EQ(processes->size(), 1U);
    EXPECT_EQ((*processes)[0].name, "python");
    EXPECT_FALSE((*processes)[0].command);
    EXPECT_TRUE(read_command_spans(**reader)->empty());
  }
  auto writer = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ((*writer)->schema_version(), latest_schema_version());
  EXPECT_GE(latest_schema_version(), 11);
  ASSERT_TRUE(write_command_spans(**writer, {{kGpu0, 100, 1000, 2000, "python train.py"}}));
  EXPECT_EQ(read_process_summaries(**writer, {})->at(0).command, "python train.py");
}

}  // namespace process_commands_test
}  // namespace gpuwatch::store
