// The recorded-window diagnosis streams the history (store::for_each_snapshot, only the
// engine's input columns, one pass): its findings must be those of the way it read before,
// read_history's full snapshots in 10-minute slices.
#include "history/findings.hpp"

#include <gtest/gtest.h>

#include "diagnose/finding_groups.hpp"
#include "diagnose/finding_json.hpp"
#include "history/max_clock.hpp"
#include "store/history_reader.hpp"
#include "store/history_writer.hpp"
#include "unit/diagnose/sim_feed.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::history {
namespace {

using diagnose::testing::at_s;
using diagnose::testing::SimFeed;

constexpr int kSeconds = 13 * 60;  // past one 10-minute slice of the old reader

std::int64_t ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

class HistoryFindingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::HistoryDatabase::open(dir_.file("demo.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    auto feed = SimFeed::builtin("demo");  // 8 GPUs: GPU 3 throttles, GPU 6 leaks, processes everywhere
    store::HistoryWriter writer(*db_);
    for (int t = 0; t <= kSeconds; ++t) {
      writer.add(feed.snapshot(t));
      if (t % 60 == 0) ASSERT_TRUE(writer.flush());
    }
    ASSERT_TRUE(writer.flush());
  }

  // What feed_recorded did before the streaming reader.
  diagnose::Diagnoser sliced(std::int64_t from, std::int64_t to, std::size_t& snapshots) const {
    diagnose::Diagnoser diagnoser;
    const auto highest = highest_sm_clock(*db_, from, to);
    constexpr std::int64_t kSliceMs = 10 * 60 * 1000;
    for (std::int64_t slice = from; slice <= to; slice += kSliceMs) {
      store::HistoryQuery query;
      query.since_ms = slice;
      query.until_ms = std::min(slice + kSliceMs - 1, to);
      query.processes = true;
      auto read = store::read_history(*db_, query);
      EXPECT_TRUE(read) << read.error().message;
      for (auto& snapshot : *read) {
        fill_max_sm_clock(snapshot, highest);
        diagnoser.observe(snapshot);
        ++snapshots;
      }
    }
    return diagnoser;
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::HistoryDatabase> db_;
};

TEST_F(HistoryFindingsTest, StreamedDiagnosisFindsWhatTheSlicedFullReadFound) {
  const std::int64_t from = ms(at_s(0)), to = ms(at_s(kSeconds));
  std::size_t snapshots = 0;
  // The engine's findings grouped over the samples' span: one per problem (issue 23).
  const auto expected = diagnose::group_findings(sliced(from, to, snapshots).all_findings(), {at_s(0), at_s(kSeconds)});
  auto got = diagnose_recorded(*db_, from, to);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->snapshots, snapshots);
  EXPECT_EQ(got->snapshots, static_cast<std::size_t>(kSeconds + 1));
  EXPECT_EQ(got->first_ms, from);
  EXPECT_EQ(got->last_ms, to);
  EXPECT_EQ(diagnose::findings_json(got->findings).dump(1), diagnose::findings_json(expected).dump(1));
  bool thermal3 = false, leak6 = false;
  for (const auto& f : got->findings) {
    thermal3 |= f.kind == "thermal_throttle" && f.gpus == std::vector<unsigned>{3};
    leak6 |= f.kind == "memory_leak" && f.gpus == std::vector<unsigned>{6};
  }
  EXPECT_TRUE(thermal3);  // the comparison is over real findings
  EXPECT_TRUE(leak6);
  for (const auto& f : got->findings) EXPECT_FALSE(f.episodes.empty()) << f.kind;  // grouped: each has its episodes

  // Open ends: the whole history; a window inside it.
  auto whole = diagnose_recorded(*db_, std::nullopt, std::nullopt);
  ASSERT_TRUE(whole);
  EXPECT_EQ(diagnose::findings_json(whole->findings).dump(1), diagnose::findings_json(expected).dump(1));
  snapshots = 0;
  const std::int64_t inside_from = ms(at_s(200)), inside_to = ms(at_s(700));
  const auto inside_expected =
      diagnose::group_findings(sliced(inside_from, inside_to, snapshots).all_findings(), {at_s(200), at_s(700)});
  auto inside = diagnose_recorded(*db_, inside_from, inside_to);
  ASSERT_TRUE(inside);
  EXPECT_EQ(inside->snapshots, snapshots);
  EXPECT_EQ(diagnose::findings_json(inside->findings).dump(1), diagnose::findings_json(inside_expected).dump(1));
}

TEST_F(HistoryFindingsTest, HighestSmClockIsTheMaximumOfTheRecordedClocks) {
  const std::int64_t from = ms(at_s(0)), to = ms(at_s(kSeconds));
  store::HistoryQuery query;
  query.since_ms = from;
  query.until_ms = to;
  auto all = store::read_history(*db_, query);
  ASSERT_TRUE(all);
  std::map<unsigned, std::uint64_t> expected;
  for (const auto& snapshot : *all) {
    for (const auto& device : snapshot.devices) {
      const auto clock = device.get(core::FieldId::ClocksCurrentSm).as_uint();
      if (clock && *clock > 0) {
        expected[device.index] = std::max(expected[device.index], *clock);
      }
    }
  }
  const auto highest = highest_sm_clock(*db_, from, to);
  ASSERT_EQ(highest.size(), expected.size());
  for (const auto& [index, clock] : expected) {
    ASSERT_TRUE(highest.count(index)) << index;
    EXPECT_EQ(highest.at(index).as_uint(), clock) << index;
  }
}

TEST_F(HistoryFindingsTest, NothingRecordedInTheWindow) {
  auto none = diagnose_recorded(*db_, ms(at_s(kSeconds + 10)), ms(at_s(kSeconds + 100)));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->snapshots, 0U);
  EXPECT_FALSE(none->first_ms.has_value());
  EXPECT_TRUE(none->findings.empty());
}

}  // namespace
}  // namespace gpuwatch::history
