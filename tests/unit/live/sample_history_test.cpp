#include "live/sample_history.hpp"

#include <gtest/gtest.h>

#include "live/collector.hpp"
#include "unit/nvml/fake_nvml.hpp"

#include <chrono>
#include <cmath>
#include <thread>

namespace gpuwatch::live {
namespace sample_history_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

HistoryRow row(unsigned gpu, double t, double util = 0.5) {
  HistoryRow r;
  r.gpu = gpu;
  r.timestamp_s = t;
  r.up = true;
  r.values.fill(std::nan(""));
  r.values[0] = util;
  return r;
}

std::size_t column_of(FieldId id) {
  for (std::size_t i = 0; i < kHistoryFields.size(); ++i) {
    if (kHistoryFields[i] == id) return i;
  }
  ADD_FAILURE() << "not a history field";
  return 0;
}

TEST(SampleHistory, KeepsTheLatestRowsOfEachGpuUpToTheCapacity) {
  SampleHistory history(3);
  for (int i = 0; i < 5; ++i) history.push(row(0, 100 + i));
  history.push(row(1, 200));
  EXPECT_EQ(history.size(0), 3u);
  EXPECT_EQ(history.size(1), 1u);
  EXPECT_EQ(history.size(7), 0u);
  EXPECT_EQ(history.last_seq(), 6u);
  auto rows = history.rows_since(-1e300, 0u);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].timestamp_s, 102);  // the two oldest were dropped
  EXPECT_EQ(rows[2].timestamp_s, 104);
  EXPECT_EQ(rows[0].seq, 3u);
  EXPECT_EQ(rows[2].seq, 5u);
}

TEST(SampleHistory, ZeroCapacityKeepsOne) {
  SampleHistory history(0);
  EXPECT_EQ(history.capacity(), 1u);
  history.push(row(0, 1));
  history.push(row(0, 2));
  EXPECT_EQ(history.size(0), 1u);
}

TEST(SampleHistory, RowsSinceFiltersByTimeAndGpu) {
  SampleHistory history(100);
  for (int i = 0; i < 10; ++i) {
    history.push(row(0, 1000 + i));
    history.push(row(1, 1000.5 + i));
  }
  auto recent = history.rows_since(1007);
  ASSERT_EQ(recent.size(), 6u);  // GPU 0: 1007, 1008, 1009; GPU 1: 1007.5, 1008.5, 1009.5
  EXPECT_EQ(recent[0].gpu, 0u);
  EXPECT_EQ(recent[0].timestamp_s, 1007);
  EXPECT_EQ(recent[3].gpu, 1u);
  EXPECT_EQ(recent[3].timestamp_s, 1007.5);
  auto gpu1 = history.rows_since(1008, 1u);
  ASSERT_EQ(gpu1.size(), 2u);
  EXPECT_EQ(gpu1[0].timestamp_s, 1008.5);
  EXPECT_TRUE(history.rows_since(2000).empty());
  EXPECT_TRUE(history.rows_since(0, 5u).empty());
}

TEST(SampleHistory, RowsAfterAreInSequenceOrderAcrossGpus) {
  SampleHistory history(10);
  history.push(row(1, 1));
  history.push(row(0, 2));
  history.push(row(1, 3));
  history.push(row(0, 4));
  auto rows = history.rows_after(1);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].seq, 2u);
  EXPECT_EQ(rows[0].gpu, 0u);
  EXPECT_EQ(rows[1].seq, 3u);
  EXPECT_EQ(rows[1].gpu, 1u);
  EXPECT_EQ(rows[2].seq, 4u);
  EXPECT_TRUE(history.rows_after(4).empty());
}

TEST(SampleHistory, WaitAfterWakesOnPushAndOnWakeAll) {
  SampleHistory history(10);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(history.wait_after(0, 30ms), 0u);  // nothing: times out
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 25ms);

  std::thread pusher([&] {
    std::this_thread::sleep_for(20ms);
    history.push(row(0, 1));
  });
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(history.wait_after(0, 5s), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  pusher.join();

  std::thread waker([&] {
    std::this_thread::sleep_for(20ms);
    history.wake_all();
  });
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(history.wait_after(1, 5s), 1u);  // woken without a new row
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  waker.join();
  EXPECT_EQ(history.wait_after(0, 5s), 1u);  // already there: at once
}

TEST(SampleHistory, RowOfASampleHasBaseUnitsAndNaNForAbsent) {
  core::DeviceSnapshot device;
  device.index = 3;
  device.get(FieldId::UtilizationGpu) = FieldReading::of(0.75);
  device.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{85899345920});
  device.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{67});
  device.get(FieldId::FanSpeed) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  device.processes_status = FieldStatus::Ok;
  device.processes.resize(2);
  auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'250));
  HistoryRow r = make_history_row(device, t);
  EXPECT_EQ(r.gpu, 3u);
  EXPECT_DOUBLE_EQ(r.timestamp_s, 1'700'000'000.25);
  EXPECT_TRUE(r.up);
  EXPECT_EQ(r.processes, 2u);
  EXPECT_EQ(r.values[column_of(FieldId::UtilizationGpu)], 0.75);
  EXPECT_EQ(r.values[column_of(FieldId::MemoryUsed)], 85899345920.0);
  EXPECT_EQ(r.values[column_of(FieldId::TemperatureGpu)], 67.0);
  EXPECT_TRUE(std::isnan(r.values[column_of(FieldId::FanSpeed)]));   // not supported
  EXPECT_TRUE(std::isnan(r.values[column_of(FieldId::PowerDraw)]));  // not read

  device.processes_status = FieldStatus::NotRead;
  EXPECT_FALSE(make_history_row(device, t).processes.has_value());

  device.state = core::DeviceState::Lost;  // a lost GPU: no values, even if readings linger
  HistoryRow lost = make_history_row(device, t);
  EXPECT_FALSE(lost.up);
  EXPECT_TRUE(std::isnan(lost.values[column_of(FieldId::UtilizationGpu)]));
}

TEST(SampleHistory, TheCollectorFeedsItEverySample) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  CollectorOptions options;
  options.interval = 10ms;
  options.history = std::make_shared<SampleHistory>(4);
  Collector collector(api, options);
  collector.start();
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while ((options.history->size(0) < 4 || options.history->size(1) < 4) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(collector.stop(2s));
  EXPECT_EQ(options.history->size(0), 4u);  // bounded at the capacity
  EXPECT_EQ(options.history->size(1), 4u);
  EXPECT_GE(options.history->last_seq(), 8u);
  auto rows = options.history->rows_since(-1e300, 1u);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows.back().up);
  EXPECT_EQ(rows.back().gpu, 1u);
  EXPECT_LT(rows.front().timestamp_s, rows.back().timestamp_s);
  EXPECT_GT(rows.back().values[column_of(FieldId::MemoryTotal)], 0);
}

}  // namespace sample_history_test
}  // namespace gpuwatch::live
