// csv_render.cpp, query_json.cpp, query_devices.cpp
#include <gtest/gtest.h>

#include "terminal/csv_render.hpp"
#include "query/devices.hpp"
#include "query/json.hpp"

namespace gpuwatch::query {
namespace render_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::Snapshot two_gpus() {
  core::Snapshot snap;
  snap.error_strings[15] = "GPU is lost";
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
    d.get(FieldId::Uuid) = FieldReading::of(std::string(i == 0 ? "GPU-aaaa" : "GPU-bbbb"));
    d.get(FieldId::PciBusId) = FieldReading::of(std::string(i == 0 ? "00000000:01:00.0" : "00000000:83:00.0"));
    d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{19818ull << 20});
    d.get(FieldId::FanSpeed) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
    d.get(FieldId::PowerDraw) = FieldReading::of(631.95);
    snap.devices.push_back(d);
  }
  snap.devices[1].state = core::DeviceState::Lost;
  snap.devices[1].get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::GpuLost, 15});
  core::ProcessSample p;
  p.pid = 11345;
  p.name = "./gpu_burn";
  p.used_memory_bytes = 15690ull << 20;
  snap.devices[0].processes = {p};
  p.pid = 7;
  p.type = core::ProcessType::Graphics;
  snap.devices[0].processes.push_back(p);
  return snap;
}

TEST(QueryCsv, HeaderAndRowsAsNvidiaSmi) {
  std::vector<FieldId> fields = {FieldId::Name, FieldId::MemoryUsed, FieldId::FanSpeed, FieldId::PowerDraw};
  EXPECT_EQ(terminal::gpu_csv_header(fields), "name, memory.used [MiB], fan.speed [%], power.draw [W]");
  auto rows = terminal::gpu_csv_rows(two_gpus(), fields, {true});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "NVIDIA H100 80GB HBM3, 19818 MiB, [N/A], 631.95 W");
  EXPECT_EQ(rows[1], "NVIDIA H100 80GB HBM3, 19818 MiB, [N/A], [GPU is lost]");
  EXPECT_EQ(terminal::gpu_csv_rows(two_gpus(), fields, {false})[0], "NVIDIA H100 80GB HBM3, 19818, [N/A], 631.95");
}

TEST(QueryCsv, ComputeAppsSkipGraphicsOnlyProcesses) {
  using core::AppFieldId;
  std::vector<AppFieldId> fields = {AppFieldId::GpuBusId, AppFieldId::Pid, AppFieldId::ProcessName, AppFieldId::UsedGpuMemory};
  EXPECT_EQ(terminal::app_csv_header(fields), "gpu_bus_id, pid, process_name, used_gpu_memory [MiB]");
  auto rows = terminal::app_csv_rows(two_gpus(), fields, {true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], "00000000:01:00.0, 11345, ./gpu_burn, 15690 MiB");
}

TEST(QueryJson, NumbersInBaseUnitsAndNullWhenAbsent) {
  auto rows = gpu_json_rows(two_gpus(), {FieldId::MemoryUsed, FieldId::FanSpeed, FieldId::PowerDraw});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["memory_used_bytes"], 19818ull << 20);
  EXPECT_TRUE(rows[0]["fan_speed_ratio"].is_null());
  EXPECT_DOUBLE_EQ(rows[0]["power_draw_w"].get<double>(), 631.95);
  EXPECT_TRUE(rows[1]["power_draw_w"].is_null());
  auto apps = app_json_rows(two_gpus(), {core::AppFieldId::Pid, core::AppFieldId::UsedGpuMemory});
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(apps[0]["used_gpu_memory_bytes"], 15690ull << 20);
}

TEST(QueryDevices, IndexUuidAndBusId) {
  auto snap = two_gpus();
  EXPECT_EQ(*select_devices("1", snap), std::vector<unsigned>{1});
  EXPECT_EQ(*select_devices("GPU-bbbb,0", snap), (std::vector<unsigned>{1, 0}));
  EXPECT_EQ(*select_devices("00000000:83:00.0", snap), std::vector<unsigned>{1});
  EXPECT_EQ(*select_devices("83:00.0", snap), std::vector<unsigned>{1});
  auto none = select_devices("5", snap);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("\"5\""), std::string::npos);
}

}  // namespace render_test
}  // namespace gpuwatch::query
