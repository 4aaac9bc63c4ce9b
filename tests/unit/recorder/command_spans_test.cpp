// Command-line spans from the samples (recorder/command_spans.hpp): one span per process and
// GPU while its command stays the same from sample to sample.
#include "recorder/command_spans.hpp"

#include <gtest/gtest.h>

#include <map>

#include "unit/recorder/span_fixture.hpp"

namespace gpuwatch::recorder {
namespace command_spans_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::with_processes;

// A /proc stand-in that counts how often it is asked.
struct FakeProc {
  std::map<std::uint32_t, std::string> commands;
  int asked = 0;
  CommandLookup lookup() {
    return [this](std::uint32_t pid) -> std::optional<std::string> {
      ++asked;
      auto found = commands.find(pid);
      if (found == commands.end()) return std::nullopt;
      return found->second;
    };
  }
};

TEST(CommandSpans, ASpanGrowsWhileTheCommandStaysAndIsWrittenOnlyWhenItChanged) {
  FakeProc proc;
  proc.commands[10] = "python train.py --epochs 3";
  CommandSpans spans;
  spans.observe(with_processes(1000, {{0, 10}, {1, 10}}), proc.lookup());
  EXPECT_EQ(proc.asked, 1);  // once per PID per sample, however many GPUs it is on
  auto first = spans.pending();
  ASSERT_EQ(first.size(), 2U);  // one per GPU
  EXPECT_EQ(first[0].gpu_key, "GPU-00000000");
  EXPECT_EQ(first[1].gpu_key, "GPU-00000001");
  EXPECT_EQ(first[0].command, "python train.py --epochs 3");
  EXPECT_EQ(first[0].first_ms, 1000);
  EXPECT_EQ(first[0].last_ms, 1000);
  spans.written();
  EXPECT_TRUE(spans.pending().empty());
  for (std::int64_t t = 2000; t <= 86'400'000; t += 1000) spans.observe(with_processes(t, {{0, 10}, {1, 10}}), proc.lookup());
  auto grown = spans.pending();
  ASSERT_EQ(grown.size(), 2U);  // a day of samples: still one row per GPU
  EXPECT_EQ(grown[0].first_ms, 1000);
  EXPECT_EQ(grown[0].last_ms, 86'400'000);
  EXPECT_EQ(spans.open_spans(), 2U);
}

TEST(CommandSpans, ANewCommandForTheSamePidStartsANewSpan) {
  FakeProc proc;
  proc.commands[10] = "python train.py";
  CommandSpans spans;
  spans.observe(with_processes(1000, {{0, 10}}), proc.lookup());
  spans.observe(with_processes(2000, {{0, 10}}), proc.lookup());
  proc.commands[10] = "python eval_server.py --port 8500";  // the PID was reused
  spans.observe(with_processes(3000, {{0, 10}}), proc.lookup());
  auto rows = spans.pending();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0], (store::CommandSpanRow{"GPU-00000000", 10, 1000, 2000, "python train.py"}));
  EXPECT_EQ(rows[1], (store::CommandSpanRow{"GPU-00000000", 10, 3000, 3000, "python eval_server.py --port 8500"}));
}

TEST(CommandSpans, AnUnknownCommandHasNoRowAndAGapEndsTheSpan) {
  FakeProc proc;
  proc.commands[10] = "python train.py";
  proc.commands[11] = "";  // /proc said nothing (a zombie): absent, never ''
  CommandSpans spans;
  spans.observe(with_processes(1000, {{0, 10}, {0, 11}, {0, 12}}), proc.lookup());
  spans.observe(with_processes(2000, {}), proc.lookup());
  spans.observe(with_processes(3000, {{0, 10}}), proc.lookup());
  auto rows = spans.pending();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].first_ms, 1000);
  EXPECT_EQ(rows[0].last_ms, 1000);
  EXPECT_EQ(rows[1].first_ms, 3000);
  for (const auto& row : rows) EXPECT_EQ(row.pid, 10U);
}

TEST(CommandSpans, AHugeArgvIsClippedAsStored) {
  FakeProc proc;
  proc.commands[10] = "python train.py " + std::string(100'000, 'a');
  CommandSpans spans;
  spans.observe(with_processes(1000, {{0, 10}}), proc.lookup());
  spans.observe(with_processes(2000, {{0, 10}}), proc.lookup());
  auto rows = spans.pending();
  ASSERT_EQ(rows.size(), 1U);  // the clipped command compares equal from sample to sample
  EXPECT_LE(rows[0].command.size(), store::kMaxCommandBytes);
  EXPECT_EQ(rows[0].command.substr(0, 16), "python train.py ");
  EXPECT_EQ(rows[0].last_ms, 2000);
}

}  // namespace command_spans_test
}  // namespace gpuwatch::recorder
