#include "nvml/nvml_api.hpp"

#include <gtest/gtest.h>

#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::nvml {
namespace {

using testing::FakeNvml;
using testing::make_fake_functions;

nvmlDevice_t first_device(const NvmlApi& api) {
  nvmlDevice_t dev = nullptr;
  EXPECT_EQ(api.handle_by_index(0, &dev), NVML_SUCCESS);
  return dev;
}

TEST(NvmlApi, MemoryInfoUsesV2WithTheProperVersion) {
  FakeNvml fake;
  fake.devices.resize(1);
  NvmlApi api(make_fake_functions(fake));
  MemoryInfo m;
  ASSERT_EQ(api.memory_info(first_device(api), &m), NVML_SUCCESS);
  EXPECT_EQ(fake.last_memory_version, 0x02000028u);
  ASSERT_TRUE(m.reserved_bytes.has_value());
  EXPECT_EQ(*m.reserved_bytes, 479ull << 20);
  EXPECT_EQ(m.used_bytes, 19818ull << 20);
  EXPECT_EQ(fake.calls["nvmlDeviceGetMemoryInfo"], 0);
}

TEST(NvmlApi, MemoryInfoFallsBackToV1WhenV2IsMissing) {
  FakeNvml fake;
  fake.devices.resize(1);
  auto fns = make_fake_functions(fake);
  fns.nvmlDeviceGetMemoryInfo_v2 = nullptr;
  NvmlApi api(fns);
  MemoryInfo m;
  ASSERT_EQ(api.memory_info(first_device(api), &m), NVML_SUCCESS);
  EXPECT_FALSE(m.reserved_bytes.has_value());  // v1 does not report it
  EXPECT_EQ(m.used_bytes, (19818ull + 479ull) << 20);
}

TEST(NvmlApi, MemoryInfoFallsBackToV1WhenV2IsNotSupported) {
  FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].memory_v2_rc = NVML_ERROR_NOT_SUPPORTED;
  NvmlApi api(make_fake_functions(fake));
  MemoryInfo m;
  ASSERT_EQ(api.memory_info(first_device(api), &m), NVML_SUCCESS);
  EXPECT_EQ(fake.calls["nvmlDeviceGetMemoryInfo"], 1);
}

TEST(NvmlApi, MemoryInfoDoesNotHideALostGpu) {
  FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].memory_v2_rc = NVML_ERROR_GPU_IS_LOST;
  NvmlApi api(make_fake_functions(fake));
  MemoryInfo m;
  EXPECT_EQ(api.memory_info(first_device(api), &m), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(fake.calls["nvmlDeviceGetMemoryInfo"], 0);
}

TEST(NvmlApi, RunningProcessesGrowsTheBufferAndKeepsMigIds) {
  FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].compute = {{100, 1ull << 30, 0xFFFFFFFFu, 0xFFFFFFFFu}, {200, NVML_VALUE_NOT_AVAILABLE_ULL, 1, 0}};
  NvmlApi api(make_fake_functions(fake));
  std::vector<RawProcess> out;
  ASSERT_EQ(api.running_processes(first_device(api), ProcessKind::Compute, &out), NVML_SUCCESS);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].pid, 100u);
  EXPECT_EQ(out[0].used_memory_bytes, 1ull << 30);
  EXPECT_FALSE(out[0].gpu_instance_id.has_value());
  EXPECT_FALSE(out[1].used_memory_bytes.has_value());  // "not available" is absent, not huge
  EXPECT_EQ(out[1].gpu_instance_id, 1u);
}

// A v1-only driver: 16-byte records, read with the v1 layout.
TEST(NvmlApi, RunningProcessesUsesV1LayoutForThePlainSymbol) {
  FakeNvml fake;
  fake.devices.resize(1);
  auto fns = make_fake_functions(fake);
  fns.nvmlDeviceGetComputeRunningProcesses_v3 = nullptr;
  fns.nvmlDeviceGetComputeRunningProcesses = [](nvmlDevice_t, unsigned* n, nvmlProcessInfo_v1_t* out) {
    if (*n < 2) {
      *n = 2;
      return nvmlReturn_t{NVML_ERROR_INSUFFICIENT_SIZE};
    }
    out[0] = {7, 100};
    out[1] = {8, 200};
    *n = 2;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  NvmlApi api(fns);
  std::vector<RawProcess> out;
  ASSERT_EQ(api.running_processes(first_device(api), ProcessKind::Compute, &out), NVML_SUCCESS);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].pid, 8u);
  EXPECT_EQ(out[1].used_memory_bytes, 200u);
}

TEST(NvmlApi, MissingOptionalSymbolAnswersFunctionNotFound) {
  FakeNvml fake;
  fake.devices.resize(1);
  NvmlApi api(make_fake_functions(fake));
  unsigned long long mask = 0;
  EXPECT_EQ(api.current_clocks_event_reasons(first_device(api), &mask), NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(GW_NVML_CALL(api.raw(), nvmlDeviceGetFanSpeed_v2, first_device(api), 0u, nullptr),
            NVML_ERROR_FUNCTION_NOT_FOUND);
}

TEST(NvmlApi, ClocksEventReasonsPreferTheNewName) {
  FakeNvml fake;
  fake.devices.resize(1);
  auto fns = make_fake_functions(fake);
  fns.nvmlDeviceGetCurrentClocksThrottleReasons = [](nvmlDevice_t, unsigned long long* m) {
    *m = 1;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  NvmlApi old_only(fns);
  unsigned long long mask = 0;
  ASSERT_EQ(old_only.current_clocks_event_reasons(first_device(old_only), &mask), NVML_SUCCESS);
  EXPECT_EQ(mask, 1u);
  fns.nvmlDeviceGetCurrentClocksEventReasons = [](nvmlDevice_t, unsigned long long* m) {
    *m = 4;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  NvmlApi both(fns);
  ASSERT_EQ(both.current_clocks_event_reasons(first_device(both), &mask), NVML_SUCCESS);
  EXPECT_EQ(mask, 4u);
}

TEST(NvmlApi, ErrorStringFallsBackWhenTheSymbolIsMissing) {
  NvmlFunctions fns;
  NvmlApi api(fns);
  EXPECT_EQ(api.error_string(15), "NVML error 15");
}

}  // namespace
}  // namespace gpuwatch::nvml
