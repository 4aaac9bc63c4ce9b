// for_each_snapshot (one Snapshot and one DeviceSnapshot per GPU reused across rows, the
// process rows merged in step, optionally a subset of columns) gives what read_history gives.
#include "store/history_reader_stream.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_columns.hpp"
#include "store/history_reader.hpp"
#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_reader_stream_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;
using testing::make_snapshot;
using testing::TempDir;

core::ProcessSample process(std::uint32_t pid, std::string name, std::optional<std::uint64_t> bytes,
                            core::ProcessType type = core::ProcessType::Compute) {
  core::ProcessSample p;
  p.pid = pid;
  p.name = std::move(name);
  p.used_memory_bytes = bytes;
  p.type = type;
  return p;
}

void expect_same(const core::Snapshot& a, const core::Snapshot& b, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.timestamp, b.timestamp);
  EXPECT_EQ(a.device_count, b.device_count);
  EXPECT_EQ(a.driver_version, b.driver_version);
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (std::size_t d = 0; d < a.devices.size(); ++d) {
    const auto& x = a.devices[d];
    const auto& y = b.devices[d];
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.state, y.state);
    EXPECT_EQ(x.error, y.error);
    ASSERT_EQ(x.readings.size(), y.readings.size());
    for (std::size_t f = 0; f < x.readings.size(); ++f) {
      EXPECT_EQ(x.readings[f].status, y.readings[f].status) << "device " << d << " field " << f;
      EXPECT_EQ(x.readings[f].vendor_code, y.readings[f].vendor_code) << "device " << d << " field " << f;
      EXPECT_EQ(x.readings[f].value, y.readings[f].value) << "device " << d << " field " << f;
    }
    EXPECT_EQ(x.processes_status, y.processes_status) << "device " << d;
    ASSERT_EQ(x.processes.size(), y.processes.size()) << "device " << d;
    for (std::size_t p = 0; p < x.processes.size(); ++p) {
      EXPECT_EQ(x.processes[p].pid, y.processes[p].pid);
      EXPECT_EQ(x.processes[p].name, y.processes[p].name);
      EXPECT_EQ(x.processes[p].used_memory_bytes, y.processes[p].used_memory_bytes);
      EXPECT_EQ(x.processes[p].type, y.processes[p].type);
      EXPECT_EQ(x.processes[p].gpu_instance_id, y.processes[p].gpu_instance_id);
      EXPECT_EQ(x.processes[p].sm_ratio, y.processes[p].sm_ratio);
    }
  }
}

std::vector<core::Snapshot> streamed(const HistoryDatabase& db, const HistoryQuery& query) {
  std::vector<core::Snapshot> out;
  auto visited = for_each_snapshot(db, query, [&](const core::Snapshot& snapshot) { out.push_back(snapshot); });
  EXPECT_TRUE(visited) << visited.error().message;
  if (visited) EXPECT_EQ(*visited, out.size());
  return out;
}

class HistoryStreamTest : public ::testing::Test {
 protected:
  // 3 GPUs at t = 1..8 s; GPU 1 missing at 3 s and only GPU 1 at 5 s; NULLs (power always,
  // utilization of GPU 2 at even seconds); processes that come and go (names of all lengths,
  // memory unknown, G / C+G types), and a process row of a GPU row that does not exist.
  void SetUp() override {
    auto opened = HistoryDatabase::open(dir_.file("history.db"), OpenOptions{.durable = false});
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    HistoryWriter writer(*db_);
    for (int i = 1; i <= 8; ++i) {
      core::Snapshot snapshot = make_snapshot(i * 1000, 3);
      for (auto& device : snapshot.devices) {
        device.get(FieldId::UtilizationGpu) = FieldReading::of(0.1 * i + 0.01 * device.index);
        device.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t(i) << 30);
      }
      if (i % 2 == 0) snapshot.devices[2].get(FieldId::UtilizationGpu) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
      if (i <= 4) {
        snapshot.devices[0].processes = {process(100, "train", std::uint64_t(i) << 30),
                                         process(101, "a rather long process name, past the short-string buffer",
                                                 std::nullopt, core::ProcessType::Graphics)};
        snapshot.devices[0].processes_status = FieldStatus::Ok;
      }
      if (i == 2) {
        snapshot.devices[2].processes = {process(300, "", std::uint64_t(5) << 20, core::ProcessType::ComputeAndGraphics)};
      }
      if (i == 6 || i == 7) snapshot.devices[1].processes = {process(200, "eval", std::nullopt)};
      if (i == 3) snapshot.devices.erase(snapshot.devices.begin() + 1);
      if (i == 5) snapshot.devices = {snapshot.devices[1]};
      snapshot.device_count = static_cast<unsigned>(snapshot.devices.size());
      writer.add(snapshot);
    }
    ASSERT_TRUE(writer.flush());
    db_->sql().exec(
        "INSERT INTO process_samples (time_ms, gpu_id, pid, name, type) "
        "SELECT 3000, id, 999, 'orphan', 'C' FROM gpus WHERE gpu_index = 1");
  }
  TempDir dir_;
  std::unique_ptr<HistoryDatabase> db_;
};

TEST_F(HistoryStreamTest, SameSnapshotsAsReadHistoryForEveryKindOfQuery) {
  std::vector<std::pair<std::string, HistoryQuery>> queries;
  queries.emplace_back("all", HistoryQuery{});
  HistoryQuery with_processes;
  with_processes.processes = true;
  queries.emplace_back("processes", with_processes);
  HistoryQuery range = with_processes;
  range.since_ms = 2'000;
  range.until_ms = 6'000;
  queries.emplace_back("range", range);
  HistoryQuery one_gpu = with_processes;
  one_gpu.gpu_index = 1;
  queries.emplace_back("gpu 1", one_gpu);
  HistoryQuery by_uuid = with_processes;
  by_uuid.gpu_uuid = "GPU-00000000";
  queries.emplace_back("uuid", by_uuid);
  HistoryQuery limited = with_processes;
  limited.limit = 7;
  queries.emplace_back("limit", limited);
  HistoryQuery some_columns = with_processes;
  some_columns.columns = {FieldId::UtilizationGpu, FieldId::MemoryUsed, FieldId::Uuid, FieldId::ClocksMaxSm};
  queries.emplace_back("columns", some_columns);
  HistoryQuery no_columns;
  no_columns.columns = std::vector<FieldId>{};
  queries.emplace_back("no columns", no_columns);
  for (auto statistic : {Statistic::Avg, Statistic::Min, Statistic::Max}) {
    HistoryQuery minute;
    minute.resolution = Resolution::Minute;
    minute.statistic = statistic;
    queries.emplace_back("minute", minute);
    HistoryQuery hour = minute;
    hour.resolution = Resolution::Hour;
    hour.columns = {FieldId::ClocksCurrentSm};
    queries.emplace_back("hour, one column", hour);
  }
  for (const auto& [name, query] : queries) {
    auto expected = read_history(*db_, query);
    ASSERT_TRUE(expected) << expected.error().message;
    auto got = streamed(*db_, query);
    ASSERT_EQ(got.size(), expected->size()) << name;
    for (std::size_t i = 0; i < got.size(); ++i) expect_same(got[i], (*expected)[i], name + " #" + std::to_string(i));
  }
}

TEST_F(HistoryStreamTest, ReusedDevicesCarryNothingOverFromEarlierRows) {
  HistoryQuery query;
  query.processes = true;
  auto got = streamed(*db_, query);
  ASSERT_EQ(got.size(), 8U);
  // GPU 0's processes stop after 4 s: later rows have none, and say so (NotRead, as read_history).
  ASSERT_EQ(got[3].devices[0].processes.size(), 2U);
  EXPECT_EQ(got[3].devices[0].processes_status, FieldStatus::Ok);
  EXPECT_EQ(got[3].devices[0].processes[1].type, core::ProcessType::Graphics);
  EXPECT_FALSE(got[3].devices[0].processes[1].used_memory_bytes.has_value());
  EXPECT_TRUE(got[5].devices[0].processes.empty());
  EXPECT_EQ(got[5].devices[0].processes_status, FieldStatus::NotRead);
  // The GPU set changes: 3 s has GPUs 0 and 2 (the orphan process row of GPU 1 is dropped), 5 s only GPU 1.
  ASSERT_EQ(got[2].devices.size(), 2U);
  EXPECT_EQ(got[2].devices[1].index, 2U);
  EXPECT_EQ(got[2].device_count, 2U);
  ASSERT_EQ(got[4].devices.size(), 1U);
  EXPECT_EQ(got[4].devices[0].index, 1U);
  EXPECT_EQ(got[4].devices[0].get(FieldId::Uuid).as_string(), "GPU-00000001");
  ASSERT_EQ(got[5].devices[1].processes.size(), 1U);
  EXPECT_EQ(got[5].devices[1].processes[0].name, "eval");
  // A NULL after a value reads as NULL (NotSupported), and a value after a NULL as the value.
  EXPECT_EQ(got[1].devices[2].get(FieldId::UtilizationGpu).status, FieldStatus::NotSupported);
  EXPECT_NEAR(got[2].devices[1].get(FieldId::UtilizationGpu).as_double().value_or(-1), 0.32, 1e-9);
  EXPECT_EQ(got[7].devices[2].get(FieldId::Timestamp).as_double(), 8.0);
  EXPECT_EQ(got[6].devices[2].processes_status, FieldStatus::NotRead);
  EXPECT_EQ(got[1].devices[2].processes[0].type, core::ProcessType::ComputeAndGraphics);
}

TEST_F(HistoryStreamTest, ColumnsFilterReadsOnlyThoseColumns) {
  HistoryQuery query;
  query.columns = {FieldId::MemoryUsed, FieldId::PowerDraw};
  auto got = streamed(*db_, query);
  ASSERT_FALSE(got.empty());
  const auto& device = got.back().devices[0];
  EXPECT_EQ(device.get(FieldId::MemoryUsed).as_uint(), std::uint64_t(8) << 30);
  EXPECT_EQ(device.get(FieldId::PowerDraw).status, FieldStatus::NotSupported);  // NULL
  EXPECT_EQ(device.get(FieldId::UtilizationGpu).status, FieldStatus::NotRead);  // not asked for
  EXPECT_EQ(device.get(FieldId::TemperatureGpu).status, FieldStatus::NotRead);
  EXPECT_EQ(device.get(FieldId::Uuid).as_string(), "GPU-00000000");             // identity: always
  EXPECT_EQ(device.get(FieldId::Timestamp).as_double(), 8.0);
}

TEST_F(HistoryStreamTest, VisitorChangesLastOnlyOutsideTheFieldsRead) {
  HistoryQuery query;
  query.columns = {FieldId::UtilizationGpu};
  std::vector<std::optional<double>> utilization, max_clock;
  auto visited = for_each_snapshot(*db_, query, [&](core::Snapshot& snapshot) {
    auto& device = snapshot.devices.front();
    if (device.index != 0) return;
    utilization.push_back(device.get(FieldId::UtilizationGpu).as_double());
    max_clock.push_back(device.get(FieldId::ClocksMaxSm).as_double());
    device.get(FieldId::UtilizationGpu) = FieldReading::of(-1.0);
    if (!device.get(FieldId::ClocksMaxSm).ok()) device.get(FieldId::ClocksMaxSm) = FieldReading::of(1.98e9);
  });
  ASSERT_TRUE(visited);
  ASSERT_EQ(utilization.size(), 7U);  // every time but 5 s
  for (std::size_t i = 0; i < utilization.size(); ++i) EXPECT_GT(utilization[i].value_or(-1), 0) << i;
  EXPECT_FALSE(max_clock[0].has_value());
  EXPECT_EQ(max_clock[1], 1.98e9);
}

TEST_F(HistoryStreamTest, AVisitorMayTakeTheSnapshot) {
  HistoryQuery query;
  query.processes = true;
  std::vector<core::Snapshot> taken;
  auto visited = for_each_snapshot(*db_, query, [&](core::Snapshot& snapshot) { taken.push_back(std::move(snapshot)); });
  ASSERT_TRUE(visited);
  auto copies = streamed(*db_, query);
  ASSERT_EQ(taken.size(), copies.size());
  for (std::size_t i = 0; i < taken.size(); ++i) expect_same(taken[i], copies[i], "#" + std::to_string(i));
}

TEST_F(HistoryStreamTest, AColumnTheFileLacksReadsAsAbsent) {
  db_->sql().exec("ALTER TABLE gpu_samples DROP COLUMN fan_speed_percent");
  auto history = read_history(*db_, HistoryQuery{});
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 8U);
  const auto& device = history->front().devices[0];
  EXPECT_EQ(device.get(FieldId::FanSpeed).status, FieldStatus::NotSupported);
  EXPECT_EQ(device.get(FieldId::TemperatureGpu).as_int(), 61);
}

TEST_F(HistoryStreamTest, EmptyRangeVisitsNothing) {
  HistoryQuery query;
  query.since_ms = 9'000;
  query.processes = true;
  EXPECT_TRUE(streamed(*db_, query).empty());
}

}  // namespace history_reader_stream_test
}  // namespace gpuwatch::store
