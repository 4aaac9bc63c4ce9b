// The stand-in driver through dlopen: init rules, handles, strings, layouts per symbol
// version, the size-query protocol, error codes, legacy library, bad scenarios.
#include <cstring>

#include "tests/integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

TEST(SimDriverAbi, InitRulesHandlesAndStrings) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "demo"}}, [](Nvml& n) {
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
    EXPECT_EQ(n.nvmlShutdown(), NVML_SUCCESS);  // without init
    char version[80];
    EXPECT_EQ(n.nvmlSystemGetNVMLVersion(version, sizeof version), NVML_SUCCESS);  // works before init
    EXPECT_STREQ(version, "12.550.90.07");
    EXPECT_EQ(n.nvmlSystemGetNVMLVersion(version, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_STREQ(n.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    EXPECT_STREQ(n.nvmlErrorString(26), "Requested functionality has been deprecated");
    EXPECT_STREQ(n.nvmlErrorString(12345), "Unknown Error");
    ASSERT_EQ(n.nvmlInitWithFlags(0), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 8u);
    nvmlDevice_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(3, &a), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex(3, &b), NVML_SUCCESS);
    EXPECT_EQ(a, b);
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(8, &b), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, nullptr), NVML_ERROR_INVALID_ARGUMENT);
    char uuid[96], name[96];
    ASSERT_EQ(n.nvmlDeviceGetUUID(a, uuid, sizeof uuid), NVML_SUCCESS);
    EXPECT_EQ(std::strncmp(uuid, "GPU-", 4), 0);
    EXPECT_EQ(std::strlen(uuid), 40u);
    ASSERT_EQ(n.nvmlDeviceGetHandleByUUID(uuid, &c), NVML_SUCCESS);
    EXPECT_EQ(c, a);
    EXPECT_EQ(n.nvmlDeviceGetHandleByUUID("GPU-nope", &c), NVML_ERROR_NOT_FOUND);
    nvmlPciInfo_t pci{};
    ASSERT_EQ(n.nvmlDeviceGetPciInfo_v3(a, &pci), NVML_SUCCESS);
    EXPECT_STREQ(pci.busId, "00000000:5D:00.0");
    EXPECT_STREQ(pci.busIdLegacy, "0000:5D:00.0");
    EXPECT_EQ(pci.pciDeviceId, 0x233010DEu);
    EXPECT_EQ(pci.bus, 0x5Du);
    ASSERT_EQ(n.nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &d), NVML_SUCCESS);
    EXPECT_EQ(d, a);
    ASSERT_EQ(n.nvmlDeviceGetName(a, name, sizeof name), NVML_SUCCESS);
    EXPECT_STREQ(name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(n.nvmlDeviceGetName(a, name, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    unsigned index = 99;
    ASSERT_EQ(n.nvmlDeviceGetIndex(a, &index), NVML_SUCCESS);
    EXPECT_EQ(index, 3u);
    int bogus = 0;
    EXPECT_EQ(n.nvmlDeviceGetIndex(reinterpret_cast<nvmlDevice_t>(&bogus), &index), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlDeviceGetIndex(nullptr, &index), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(a, nullptr), NVML_ERROR_INVALID_ARGUMENT);
    unsigned fan = 0;
    EXPECT_EQ(n.nvmlDeviceGetFanSpeed(a, &fan), NVML_ERROR_NOT_SUPPORTED);  // passively cooled
    unsigned power = 0, limit = 0;
    ASSERT_EQ(n.nvmlDeviceGetPowerUsage(a, &power), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetEnforcedPowerLimit(a, &limit), NVML_SUCCESS);
    EXPECT_EQ(limit, 700000u);
    EXPECT_GT(power, 100000u);
    EXPECT_LE(power, limit + 20000);
    char driver[80];
    ASSERT_EQ(n.nvmlSystemGetDriverVersion(driver, sizeof driver), NVML_SUCCESS);
    EXPECT_STREQ(driver, "550.90.07");
    int cuda = 0;
    ASSERT_EQ(n.nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
    EXPECT_EQ(cuda, 12040);
    EXPECT_EQ(n.nvmlShutdown(), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlShutdown(), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
  }));
}

TEST(SimDriverAbi, MemoryLayoutsAndVersions) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "idle"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    nvmlMemory_v2_t m2{};
    m2.version = 2;  // what nvml.h's comment suggests; real drivers reject it
    EXPECT_EQ(n.nvmlDeviceGetMemoryInfo_v2(h, &m2), NVML_ERROR_FUNCTION_NOT_FOUND);
    m2.version = nvmlMemory_v2;
    ASSERT_EQ(n.nvmlDeviceGetMemoryInfo_v2(h, &m2), NVML_SUCCESS);
    EXPECT_EQ(m2.total, 81559ull << 20);
    EXPECT_EQ(m2.reserved, 479ull << 20);
    EXPECT_EQ(m2.total, m2.reserved + m2.used + m2.free);
    nvmlMemory_t m1{};
    ASSERT_EQ(n.nvmlDeviceGetMemoryInfo(h, &m1), NVML_SUCCESS);
    EXPECT_EQ(m1.total, m2.total);
    EXPECT_EQ(m1.free, m2.free);
    EXPECT_EQ(m1.used, m1.total - m1.free);  // v1 used includes reserved
    EXPECT_GT(m1.used, m2.used);
  }));
}

TEST(SimDriverAbi, ProcessRecordsPerSymbolVersionAndSizeQueries) {
  pid_t self = getpid();
  std::string yaml =
      "gpus:\n  - model: A100 SXM 80GB\n    phases: [{kind: training, duration: 1h}]\n    processes:\n"
      "      - {command: python train.py, memory: 1000, pid_env: TEST_PID}\n"
      "      - {command: python eval.py, memory: 2000, pid: 4000000}\n"
      "      - {command: Xorg, memory: 300, pid: 4000001, type: graphics}\n"
      "      - {command: stand-in without pid, memory: 50}\n";
  std::string path = temp_scenario(yaml);
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"TEST_PID", std::to_string(self)}}, [self](Nvml& n) {
    ASSERT_EQ(n.nvmlInitWithFlags(0), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(h, &count, nullptr), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_EQ(count, 2u);  // the stand-in without a PID is not reported
    nvmlProcessInfo_v1_t scratch[4];
    count = 0;
    EXPECT_EQ(n.nvmlDeviceGetComputeRunningProcesses(h, &count, scratch), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_EQ(count, 2u);
    count = 1;
    EXPECT_EQ(n.nvmlDeviceGetComputeRunningProcesses(h, &count, scratch), NVML_ERROR_INSUFFICIENT_SIZE);
    // v1: 16-byte records; the third slot keeps its sentinel.
    std::memset(scratch, 0xAB, sizeof scratch);
    count = 4;
    ASSERT_EQ(n.nvmlDeviceGetComputeRunningProcesses(h, &count, scratch), NVML_SUCCESS);
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(scratch[0].pid, static_cast<unsigned>(self));
    EXPECT_EQ(scratch[0].usedGpuMemory, 1000ull << 20);
    EXPECT_EQ(scratch[1].pid, 4000000u);
    EXPECT_EQ(scratch[1].usedGpuMemory, 2000ull << 20);
    EXPECT_EQ(scratch[2].pid, 0xABABABABu);
    // _v2/_v3: 24-byte records with instance ids 0xFFFFFFFF when MIG is off.
    nvmlProcessInfo_t v3[3];
    std::memset(v3, 0xCD, sizeof v3);
    count = 3;
    ASSERT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(h, &count, v3), NVML_SUCCESS);
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(v3[1].pid, 4000000u);
    EXPECT_EQ(v3[1].usedGpuMemory, 2000ull << 20);
    EXPECT_EQ(v3[1].gpuInstanceId, 0xFFFFFFFFu);
    EXPECT_EQ(v3[1].computeInstanceId, 0xFFFFFFFFu);
    EXPECT_EQ(v3[2].pid, 0xCDCDCDCDu);
    nvmlProcessInfo_v2_t v2[2];
    count = 2;
    ASSERT_EQ(n.nvmlDeviceGetGraphicsRunningProcesses_v2(h, &count, v2), NVML_SUCCESS);
    ASSERT_EQ(count, 1u);
    EXPECT_EQ(v2[0].pid, 4000001u);
    count = 0;
    EXPECT_EQ(n.nvmlDeviceGetMPSComputeRunningProcesses_v3(h, &count, nullptr), NVML_SUCCESS);
    EXPECT_EQ(count, 0u);
    // Process utilization: NULL -> INSUFFICIENT_SIZE, then samples.
    unsigned samples = 0;
    EXPECT_EQ(n.nvmlDeviceGetProcessUtilization(h, nullptr, &samples, 0), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT_EQ(samples, 2u);
    nvmlProcessUtilizationSample_t u[4];
    samples = 4;
    ASSERT_EQ(n.nvmlDeviceGetProcessUtilization(h, u, &samples, 0), NVML_SUCCESS);
    EXPECT_EQ(samples, 2u);
    EXPECT_GT(u[0].smUtil, 90u);
    EXPECT_LE(u[0].smUtil, 100u);
    EXPECT_GT(u[0].timeStamp, 1600000000000000ull);  // µs since 1970
    samples = 4;
    EXPECT_EQ(n.nvmlDeviceGetProcessUtilization(h, u, &samples, u[0].timeStamp), NVML_ERROR_NOT_FOUND);
    char pname[64];
    ASSERT_EQ(n.nvmlSystemGetProcessName(4000000, pname, sizeof pname), NVML_SUCCESS);
    EXPECT_STREQ(pname, "python");
    EXPECT_EQ(n.nvmlSystemGetProcessName(12345678, pname, sizeof pname), NVML_ERROR_NOT_FOUND);
  }));
}

TEST(SimDriverAbi, IdleGpuHasNoProcessUtilizationSamples) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "idle"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    unsigned samples = 0;
    EXPECT_EQ(n.nvmlDeviceGetProcessUtilization(h, nullptr, &samples, 0), NVML_ERROR_INSUFFICIENT_SIZE);
    nvmlProcessUtilizationSample_t u[2];
    samples = 2;
    EXPECT_EQ(n.nvmlDeviceGetProcessUtilization(h, u, &samples, 0), NVML_ERROR_NOT_FOUND);
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(h, &count, nullptr), NVML_SUCCESS);
    EXPECT_EQ(count, 0u);
  }));
}

TEST(SimDriverAbi, LegacyLibraryLacksNewerSymbols) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "old_driver"}}, [](Nvml& n) {
    for (const char* sym : {"nvmlInit_v2", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
                            "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetComputeRunningProcesses_v2",
                            "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetPciInfo_v3", "nvmlEventSetWait_v2",
                            "nvmlDeviceGetCurrentClocksEventReasons"})
      EXPECT_EQ(dlsym(n.lib, sym), nullptr) << sym;
    ASSERT_NE(n.nvmlInit, nullptr);
    ASSERT_EQ(n.nvmlInit(), NVML_SUCCESS);
    unsigned count = 0;
    ASSERT_EQ(n.nvmlDeviceGetCount(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 1u);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex(0, &h), NVML_SUCCESS);
    nvmlMemory_t m{};
    ASSERT_EQ(n.nvmlDeviceGetMemoryInfo(h, &m), NVML_SUCCESS);
    EXPECT_EQ(m.total, 16160ull << 20);
    char driver[80];
    ASSERT_EQ(n.nvmlSystemGetDriverVersion(driver, sizeof driver), NVML_SUCCESS);
    EXPECT_STREQ(driver, "418.87.01");
  }, legacy_driver_dir()));
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "old_driver"}}, [](Nvml& n) {
    EXPECT_NE(dlsym(n.lib, "nvmlDeviceGetComputeRunningProcesses_v3"), nullptr);
  }));
}

TEST(SimDriverAbi, BadScenarioFailsInitWithOneClearLine) {
  std::string path = temp_scenario("description: broken\ngpus:\n  - model: H100 SXM 80GB\n    values:\n      powr.draw: 1\n");
  std::string err = temp_scenario("");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    EXPECT_EQ(n.nvmlInitWithFlags(0), NVML_ERROR_DRIVER_NOT_LOADED);
    EXPECT_EQ(n.nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_ERROR_UNINITIALIZED);
  }, driver_dir(), err));
  std::ifstream in(err);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find(path + ":5: key 'powr.draw'"), std::string::npos) << all;
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1) << all;  // said once
  std::remove(path.c_str());
  std::remove(err.c_str());
}

TEST(SimDriverAbi, ZeroGpus) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "no_gpus"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInitWithFlags(0), NVML_SUCCESS);
    unsigned count = 5;
    ASSERT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 0u);
    nvmlDevice_t h = nullptr;
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_ERROR_INVALID_ARGUMENT);
  }));
}

}  // namespace
}  // namespace gpuwatch::sim::testing

namespace gpuwatch::sim::testing {
namespace {

template <class R, class... Args>
nvmlReturn_t call_with_zeros(R (*fn)(Args...)) {
  return fn(Args{}...);  // null pointers, null handles, zero counts and enums
}

int call_everything_with_zeros(Nvml& n) {
  int called = 0;
  auto check = [&](std::string_view name, auto fn) {
    if (!fn || name.rfind("nvmlInit", 0) == 0 || name == "nvmlShutdown") return;
    nvmlReturn_t r = call_with_zeros(fn);
    ++called;
    EXPECT_TRUE(r == NVML_ERROR_INVALID_ARGUMENT || r == NVML_ERROR_NOT_FOUND) << name << " returned " << r;
  };
#define GW_NVML_FN(name, params) check(#name, n.name);
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  return called;
}

// Every exported function survives null handles and null pointers and says so with
// INVALID_ARGUMENT (nvmlSystemGetProcessName(0, ...) finds no process: NOT_FOUND).
TEST(SimDriverAbi, EveryFunctionSurvivesNullArguments) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "demo"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    EXPECT_GT(call_everything_with_zeros(n), 90);
    unsigned count = 0;
    EXPECT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);  // still healthy
  }));
}

}  // namespace
}  // namespace gpuwatch::sim::testing
