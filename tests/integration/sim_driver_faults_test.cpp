// The stand-in driver through dlopen: injected faults, a lost GPU, events, MIG, and an
// imported real capture served in NVML units.
#include <cstring>
#include <filesystem>
#include <atomic>
#include <thread>
#include <vector>

#include "sim/engine/sim_api.hpp"
#include "tests/integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

TEST(SimDriverFaults, ErrorsDelaysPerGpuAndFromTime) {
  std::string path = temp_scenario(
      "gpus:\n  - model: T4\n    count: 2\n"
      "faults:\n"
      "  - {function: nvmlDeviceGetPowerUsage, gpu: 1, error: \"[Unknown Error]\"}\n"
      "  - {function: nvmlDeviceGetTemperature, delay_ms: 60}\n"
      "  - {function: nvmlDeviceGetFanSpeed, error: NO_PERMISSION}\n"
      "  - {function: nvmlDeviceGetClockInfo, from: 1s, error: 21}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"GPUWATCH_SIM_EPOCH_MS", std::to_string(now_ms())}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t g0 = nullptr, g1 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &g0), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &g1), NVML_SUCCESS);
    unsigned v = 0;
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g0, &v), NVML_SUCCESS);
    EXPECT_EQ(v, 14000u);  // T4 idle 14 W
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g1, &v), NVML_ERROR_UNKNOWN);
    EXPECT_EQ(n.nvmlDeviceGetFanSpeed(g0, &v), NVML_ERROR_NO_PERMISSION);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(n.nvmlDeviceGetTemperature(g0, 0, &v), NVML_SUCCESS);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(55));
    EXPECT_EQ(n.nvmlDeviceGetClockInfo(g0, NVML_CLOCK_SM, &v), NVML_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    EXPECT_EQ(n.nvmlDeviceGetClockInfo(g0, NVML_CLOCK_SM, &v), NVML_ERROR_NO_DATA);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverFaults, LostGpuDeliversXid79ThenGpuIsLost) {
  std::string path = temp_scenario(
      "time_scale: 10\ngpus:\n  - model: h100\n  - model: h100\n    phases: [{kind: training, duration: 5s}, {kind: gpu_lost, duration: 1h}]\n"
      "    loop: false\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"GPUWATCH_SIM_EPOCH_MS", std::to_string(now_ms())}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t g0 = nullptr, g1 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &g0), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &g1), NVML_SUCCESS);
    char uuid1[96];
    ASSERT_EQ(n.nvmlDeviceGetUUID(g1, uuid1, sizeof uuid1), NVML_SUCCESS);
    nvmlEventSet_t set = nullptr;
    ASSERT_EQ(n.nvmlEventSetCreate(&set), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlDeviceRegisterEvents(g1, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    nvmlEventData_t ev{};
    ASSERT_EQ(n.nvmlEventSetWait_v2(set, &ev, 3000), NVML_SUCCESS);  // 5 scenario s = 0.5 s
    EXPECT_EQ(ev.device, g1);
    EXPECT_EQ(ev.eventType, nvmlEventTypeXidCriticalError);
    EXPECT_EQ(ev.eventData, 79u);
    EXPECT_EQ(ev.gpuInstanceId, 0xFFFFFFFFu);
    unsigned v = 0;
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g1, &v), NVML_ERROR_GPU_IS_LOST);
    char name[96];
    EXPECT_EQ(n.nvmlDeviceGetName(g1, name, sizeof name), NVML_ERROR_GPU_IS_LOST);
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &g1), NVML_ERROR_GPU_IS_LOST);
    nvmlDevice_t any = nullptr;
    EXPECT_EQ(n.nvmlDeviceGetHandleByUUID(uuid1, &any), NVML_ERROR_GPU_IS_LOST);
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g0, &v), NVML_SUCCESS);  // the other GPU still answers
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 2u);  // still counted
    EXPECT_EQ(n.nvmlEventSetWait_v2(set, &ev, 50), NVML_ERROR_TIMEOUT);
    EXPECT_EQ(n.nvmlEventSetFree(set), NVML_SUCCESS);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverFaults, EccEventsThroughBothWaitSymbols) {
  std::string path = temp_scenario(
      "time_scale: 10\ngpus:\n  - model: a100\n    phases: [{kind: ecc_errors, duration: 1h, sbe_per_min: 300, dbe_per_min: 60, xid: 48}]\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"GPUWATCH_SIM_EPOCH_MS", std::to_string(now_ms())}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    unsigned long long supported = 0;
    ASSERT_EQ(n.nvmlDeviceGetSupportedEventTypes(h, &supported), NVML_SUCCESS);
    EXPECT_TRUE(supported & nvmlEventTypeSingleBitEccError);
    nvmlEventSet_t set = nullptr;
    ASSERT_EQ(n.nvmlEventSetCreate(&set), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceRegisterEvents(h, nvmlEventTypeSingleBitEccError | nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    nvmlEventData_t ev{};
    ASSERT_EQ(n.nvmlEventSetWait_v2(set, &ev, 3000), NVML_SUCCESS);
    EXPECT_EQ(ev.device, h);
    EXPECT_TRUE(ev.eventType == nvmlEventTypeSingleBitEccError || ev.eventType == nvmlEventTypeXidCriticalError);
    bool xid = false;
    for (int i = 0; i < 40 && !xid; ++i) {
      // The legacy symbol writes the 24-byte pre-MIG layout: the bytes after it are untouched.
      unsigned char raw[sizeof(nvmlEventData_t)];
      std::memset(raw, 0xEE, sizeof raw);
      ASSERT_EQ(n.nvmlEventSetWait(set, reinterpret_cast<nvmlEventData_v1_t*>(raw), 3000), NVML_SUCCESS);
      nvmlEventData_v1_t e1{};
      std::memcpy(&e1, raw, sizeof e1);
      EXPECT_EQ(sizeof e1, 24u);
      EXPECT_EQ(raw[24], 0xEE);
      EXPECT_EQ(raw[31], 0xEE);
      EXPECT_EQ(e1.device, h);
      xid = e1.eventType == nvmlEventTypeXidCriticalError && e1.eventData == 48;
    }
    EXPECT_TRUE(xid);
    unsigned long long corrected = 0;
    ASSERT_EQ(n.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &corrected), NVML_SUCCESS);
    EXPECT_GT(corrected, 0u);
    unsigned long long dram = 0;
    ASSERT_EQ(n.nvmlDeviceGetMemoryErrorCounter(h, 0, NVML_VOLATILE_ECC, 2, &dram), NVML_SUCCESS);
    EXPECT_EQ(dram, corrected);
    EXPECT_EQ(n.nvmlDeviceGetMemoryErrorCounter(h, 0, NVML_VOLATILE_ECC, 0, &dram), NVML_ERROR_NOT_SUPPORTED);  // L1
    EXPECT_EQ(n.nvmlEventSetFree(set), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlEventSetFree(set), NVML_ERROR_INVALID_ARGUMENT);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverFaults, MigInstancesAndParentRestrictions) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "mig"}, {"GPUWATCH_SIM_PIDS", "0:0=4100000"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t parent = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &parent), NVML_SUCCESS);
    unsigned cur = 9, pend = 9;
    ASSERT_EQ(n.nvmlDeviceGetMigMode(parent, &cur, &pend), NVML_SUCCESS);
    EXPECT_EQ(cur, 1u);
    nvmlUtilization_t u{};
    EXPECT_EQ(n.nvmlDeviceGetUtilizationRates(parent, &u), NVML_ERROR_NOT_SUPPORTED);
    unsigned max = 0;
    ASSERT_EQ(n.nvmlDeviceGetMaxMigDeviceCount(parent, &max), NVML_SUCCESS);
    EXPECT_EQ(max, 7u);
    nvmlDevice_t mig0 = nullptr, mig0b = nullptr, back = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetMigDeviceHandleByIndex(parent, 0, &mig0), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetMigDeviceHandleByIndex(parent, 0, &mig0b), NVML_SUCCESS);
    EXPECT_EQ(mig0, mig0b);
    EXPECT_NE(mig0, parent);
    EXPECT_EQ(n.nvmlDeviceGetMigDeviceHandleByIndex(parent, 5, &mig0b), NVML_ERROR_NOT_FOUND);
    unsigned is_mig = 0;
    ASSERT_EQ(n.nvmlDeviceIsMigDeviceHandle(mig0, &is_mig), NVML_SUCCESS);
    EXPECT_EQ(is_mig, 1u);
    ASSERT_EQ(n.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig0, &back), NVML_SUCCESS);
    EXPECT_EQ(back, parent);
    char uuid[96], name[96];
    ASSERT_EQ(n.nvmlDeviceGetUUID(mig0, uuid, sizeof uuid), NVML_SUCCESS);
    EXPECT_EQ(std::strncmp(uuid, "MIG-", 4), 0);
    nvmlDevice_t by_uuid = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByUUID(uuid, &by_uuid), NVML_SUCCESS);
    EXPECT_EQ(by_uuid, mig0);
    ASSERT_EQ(n.nvmlDeviceGetName(mig0, name, sizeof name), NVML_SUCCESS);
    EXPECT_STREQ(name, "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
    nvmlMemory_t m{};
    ASSERT_EQ(n.nvmlDeviceGetMemoryInfo(mig0, &m), NVML_SUCCESS);
    EXPECT_EQ(m.total, 40192ull << 20);
    EXPECT_EQ(m.used, 20000ull << 20);
    unsigned gi = 0;
    ASSERT_EQ(n.nvmlDeviceGetGpuInstanceId(mig0, &gi), NVML_SUCCESS);
    EXPECT_EQ(gi, 1u);
    EXPECT_EQ(n.nvmlDeviceGetUtilizationRates(mig0, &u), NVML_ERROR_NOT_SUPPORTED);
    nvmlProcessInfo_t p[4];
    unsigned count = 4;
    ASSERT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(parent, &count, p), NVML_SUCCESS);
    ASSERT_EQ(count, 1u);  // only the process with a PID
    EXPECT_EQ(p[0].pid, 4100000u);
    EXPECT_EQ(p[0].gpuInstanceId, 1u);
    EXPECT_EQ(p[0].computeInstanceId, 0u);
    nvmlDevice_t plain = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &plain), NVML_SUCCESS);
    nvmlDevice_t h100mig = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetMigDeviceHandleByIndex(plain, 0, &h100mig), NVML_SUCCESS);
  }));
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "consumer_card"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    unsigned cur = 0, pend = 0, clk = 0, fan = 0;
    EXPECT_EQ(n.nvmlDeviceGetMigMode(h, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    char serial[30];
    EXPECT_EQ(n.nvmlDeviceGetSerial(h, serial, sizeof serial), NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(n.nvmlDeviceGetApplicationsClock(h, NVML_CLOCK_GRAPHICS, &clk), NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(n.nvmlDeviceGetFanSpeed(h, &fan), NVML_SUCCESS);
    int ecc = 9, pending = 9;
    ASSERT_EQ(n.nvmlDeviceGetEccMode(h, &ecc, &pending), NVML_SUCCESS);
    EXPECT_EQ(ecc, 0);
  }));
}

// An imported real capture, served in NVML units through the driver.
TEST(SimDriverFaults, ImportedH100CaptureInNvmlUnits) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(GPUWATCH_REALDATA_DIR) / "nvidia-smi" / "extracted";
  std::string stem = (dir / "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load__").string();
  auto yaml = import_captures({stem + "query-gpu.csv", stem + "compute-apps.csv", stem + "q.txt"});
  ASSERT_TRUE(yaml) << yaml.error().message;
  std::string path = temp_scenario(*yaml);
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInitWithFlags(0), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    unsigned v = 0;
    ASSERT_EQ(n.nvmlDeviceGetPowerUsage(h, &v), NVML_SUCCESS);
    EXPECT_EQ(v, 631950u);
    ASSERT_EQ(n.nvmlDeviceGetEnforcedPowerLimit(h, &v), NVML_SUCCESS);
    EXPECT_EQ(v, 700000u);
    nvmlMemory_v2_t m{};
    m.version = nvmlMemory_v2;
    ASSERT_EQ(n.nvmlDeviceGetMemoryInfo_v2(h, &m), NVML_SUCCESS);
    EXPECT_EQ(m.total, 81559ull * 1048576);
    EXPECT_EQ(m.reserved, 479ull * 1048576);
    EXPECT_EQ(m.used, 19818ull * 1048576);
    EXPECT_EQ(m.free, 61263ull * 1048576);
    ASSERT_EQ(n.nvmlDeviceGetTemperature(h, 0, &v), NVML_SUCCESS);
    EXPECT_EQ(v, 59u);
    ASSERT_EQ(n.nvmlDeviceGetClockInfo(h, NVML_CLOCK_MEM, &v), NVML_SUCCESS);
    EXPECT_EQ(v, 2619u);
    int mode = 0;
    EXPECT_EQ(n.nvmlDeviceGetDisplayMode(h, &mode), 26);  // "[Requested functionality has been deprecated]"
    EXPECT_EQ(n.nvmlDeviceGetFanSpeed(h, &v), NVML_ERROR_NOT_SUPPORTED);
    int pstate = 9;
    ASSERT_EQ(n.nvmlDeviceGetPerformanceState(h, &pstate), NVML_SUCCESS);
    EXPECT_EQ(pstate, 0);
    nvmlFieldValue_t f[3]{};
    f[0].fieldId = NVML_FI_DEV_POWER_INSTANT;
    f[1].fieldId = NVML_FI_DEV_MEMORY_TEMP;
    f[2].fieldId = 9999;
    ASSERT_EQ(n.nvmlDeviceGetFieldValues(h, 3, f), NVML_SUCCESS);
    EXPECT_EQ(f[0].nvmlReturn, NVML_SUCCESS);
    EXPECT_EQ(f[0].value.uiVal, 625680u);
    EXPECT_EQ(f[1].value.uiVal, 54u);
    EXPECT_EQ(f[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    unsigned gen = 0;
    ASSERT_EQ(n.nvmlDeviceGetGpuMaxPcieLinkGeneration(h, &gen), NVML_SUCCESS);
    EXPECT_EQ(gen, 5u);
    unsigned corr = 9, unc = 9, pending = 9, failure = 9;
    ASSERT_EQ(n.nvmlDeviceGetRemappedRows(h, &corr, &unc, &pending, &failure), NVML_SUCCESS);
    EXPECT_EQ(corr + unc + pending + failure, 0u);
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetRetiredPages(h, 0, &count, nullptr), NVML_ERROR_NOT_SUPPORTED);
    nvmlProcessInfo_t p[4];
    count = 4;
    ASSERT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(h, &count, p), NVML_SUCCESS);
    ASSERT_EQ(count, 3u);
    EXPECT_EQ(p[2].pid, 11345u);
    EXPECT_EQ(p[2].usedGpuMemory, 15690ull * 1048576);
    char pname[64];
    ASSERT_EQ(n.nvmlSystemGetProcessName(11345, pname, sizeof pname), NVML_SUCCESS);
    EXPECT_STREQ(pname, "./gpu_burn");
  }));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gpuwatch::sim::testing

namespace gpuwatch::sim::testing {
namespace {

// Many threads reading while the clock runs fast (every call may recompute a GPU's sample).
TEST(SimDriverFaults, ConcurrentCallersAgreeAndNeverCrash) {
  std::string path = temp_scenario("time_scale: 50\ngpus:\n  - model: h100\n    count: 4\n"
                                   "    phases: [{kind: dataloader_starvation, duration: 60}, {kind: thermal_runaway, duration: 60}]\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
      threads.emplace_back([&n, &failures, t] {
        auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(700);
        while (std::chrono::steady_clock::now() < end) {
          nvmlDevice_t h = nullptr;
          if (n.nvmlDeviceGetHandleByIndex_v2(static_cast<unsigned>(t % 4), &h) != NVML_SUCCESS) { ++failures; continue; }
          unsigned v = 0;
          nvmlMemory_t m{};
          nvmlUtilization_t u{};
          if (n.nvmlDeviceGetPowerUsage(h, &v) != NVML_SUCCESS || v == 0) ++failures;
          if (n.nvmlDeviceGetMemoryInfo(h, &m) != NVML_SUCCESS || m.total == 0 || m.used > m.total) ++failures;
          if (n.nvmlDeviceGetUtilizationRates(h, &u) != NVML_SUCCESS || u.gpu > 100) ++failures;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverFaults, SickGpuIsSlowButAnswers) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "sick_gpu"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t g0 = nullptr, g1 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &g0), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &g1), NVML_SUCCESS);
    unsigned v = 0;
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g0, &v), NVML_SUCCESS);
    auto healthy = std::chrono::steady_clock::now() - start;
    start = std::chrono::steady_clock::now();
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(g1, &v), NVML_SUCCESS);
    auto sick = std::chrono::steady_clock::now() - start;
    EXPECT_GE(sick, std::chrono::milliseconds(45));
    EXPECT_LT(healthy, sick);  // relative, so that a loaded machine cannot make it flaky
  }));
}

}  // namespace
}  // namespace gpuwatch::sim::testing
