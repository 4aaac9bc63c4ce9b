#include "nvml/field_readers.hpp"

#include <gtest/gtest.h>

#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::nvml {
namespace field_readers_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldStatus;

struct Fixture {
  testing::FakeNvml fake;
  NvmlApi api;
  nvmlDevice_t dev = nullptr;
  core::DeviceSnapshot device;
  Fixture() : api((fake.devices.resize(1), testing::make_fake_functions(fake))) { api.handle_by_index(0, &dev); }
  nvmlReturn_t read(core::Source source, std::vector<FieldId> fields) {
    return read_source(api, dev, source, fields, device);
  }
};

TEST(FieldReaders, StatusMapping) {
  EXPECT_EQ(status_from_nvml(NVML_SUCCESS), FieldStatus::Ok);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_NOT_SUPPORTED), FieldStatus::NotSupported);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_DEPRECATED), FieldStatus::NotSupported);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_NO_PERMISSION), FieldStatus::NoPermission);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_FUNCTION_NOT_FOUND), FieldStatus::FunctionMissing);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_TIMEOUT), FieldStatus::Failed);
  EXPECT_EQ(status_from_nvml(NVML_ERROR_GPU_IS_LOST), FieldStatus::Failed);
}

TEST(FieldReaders, PowerIsConvertedFromMilliwattsToWatts) {
  Fixture f;
  EXPECT_EQ(f.read(core::Source::PowerUsage, {FieldId::PowerDraw}), NVML_SUCCESS);
  ASSERT_TRUE(f.device.get(FieldId::PowerDraw).ok());
  EXPECT_DOUBLE_EQ(*f.device.get(FieldId::PowerDraw).as_double(), 123.45);
}

TEST(FieldReaders, MemoryIsInBytesFromOneCall) {
  Fixture f;
  f.read(core::Source::MemoryInfo, {FieldId::MemoryTotal, FieldId::MemoryUsed, FieldId::MemoryReserved, FieldId::MemoryFree});
  EXPECT_EQ(f.device.get(FieldId::MemoryTotal).as_uint(), 81559ull << 20);
  EXPECT_EQ(f.device.get(FieldId::MemoryReserved).as_uint(), 479ull << 20);
  EXPECT_EQ(f.device.get(FieldId::MemoryFree).as_uint(), (81559ull - 479 - 19818) << 20);
  EXPECT_EQ(f.fake.calls["nvmlDeviceGetMemoryInfo_v2"], 1);
}

TEST(FieldReaders, NotSupportedKeepsTheReasonAndNoValue) {
  Fixture f;
  f.read(core::Source::FanSpeed, {FieldId::FanSpeed});
  const auto& r = f.device.get(FieldId::FanSpeed);
  EXPECT_FALSE(r.value.has_value());
  EXPECT_EQ(r.status, FieldStatus::NotSupported);
  EXPECT_EQ(r.vendor_code, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(r.reason, core::ErrorReason::NotSupported);
}

TEST(FieldReaders, MissingSymbolIsFunctionMissing) {
  Fixture f;
  f.read(core::Source::ClockInfo, {FieldId::ClocksCurrentSm, FieldId::ClocksCurrentMemory});
  EXPECT_EQ(f.device.get(FieldId::ClocksCurrentSm).status, FieldStatus::FunctionMissing);
  EXPECT_EQ(f.device.get(FieldId::ClocksCurrentMemory).status, FieldStatus::FunctionMissing);
}

TEST(FieldReaders, LostGpuIsReported) {
  Fixture f;
  f.fake.devices[0].temperature_rc = NVML_ERROR_GPU_IS_LOST;
  EXPECT_EQ(f.read(core::Source::Temperature, {FieldId::TemperatureGpu}), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(f.device.get(FieldId::TemperatureGpu).status, FieldStatus::Failed);
}

TEST(FieldReaders, ClockEventBitsComeFromTheActiveMask) {
  Fixture f;
  auto fns = f.api.raw();
  fns.nvmlDeviceGetCurrentClocksEventReasons = [](nvmlDevice_t, unsigned long long* m) {
    *m = 0x5;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  NvmlApi api(fns);
  core::DeviceSnapshot d;
  std::vector<FieldId> fields = {FieldId::ClocksEventReasonsActive, FieldId::ClocksEventReasonsGpuIdle,
                                 FieldId::ClocksEventReasonsSwPowerCap, FieldId::ClocksEventReasonsHwSlowdown,
                                 FieldId::ClocksEventReasonsSupported};
  read_source(api, f.dev, core::Source::ClocksEventReasons, fields, d);
  EXPECT_EQ(d.get(FieldId::ClocksEventReasonsActive).as_uint(), 5u);
  EXPECT_EQ(d.get(FieldId::ClocksEventReasonsGpuIdle).as_bool(), true);
  EXPECT_EQ(d.get(FieldId::ClocksEventReasonsSwPowerCap).as_bool(), true);
  EXPECT_EQ(d.get(FieldId::ClocksEventReasonsHwSlowdown).as_bool(), false);
  EXPECT_EQ(d.get(FieldId::ClocksEventReasonsSupported).status, FieldStatus::FunctionMissing);
}

TEST(FieldReaders, ProcessesMergeComputeAndGraphicsByPid) {
  Fixture f;
  f.fake.devices[0].compute = {{10, 1ull << 20, 0xFFFFFFFFu, 0xFFFFFFFFu}, {11, 2ull << 20, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  f.fake.devices[0].graphics = {{11, 2ull << 20, 0xFFFFFFFFu, 0xFFFFFFFFu}, {12, 3ull << 20, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  EXPECT_EQ(read_processes(f.api, f.dev, nullptr, f.device), NVML_SUCCESS);
  ASSERT_EQ(f.device.processes.size(), 3u);
  EXPECT_EQ(f.device.processes[0].type, core::ProcessType::Compute);
  EXPECT_EQ(f.device.processes[1].type, core::ProcessType::ComputeAndGraphics);
  EXPECT_EQ(f.device.processes[2].type, core::ProcessType::Graphics);
  EXPECT_EQ(f.device.processes[2].name, "proc12");
  EXPECT_EQ(f.device.processes_status, FieldStatus::Ok);
}

}  // namespace field_readers_test
}  // namespace gpuwatch::nvml
