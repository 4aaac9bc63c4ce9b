// The simulated NVML driver on a mixed-vendor scenario (issue 28): it serves the NVIDIA GPUs
// only, NVML index I being the I-th NVIDIA GPU of the scenario, while faults, processes and
// stand-in PIDs keep the scenario index.
#include "integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

TEST(SimDriverVendors, DemoMixedCountsOnlyTheNvidiaGpus) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "demo_mixed"}, {"GPUWATCH_SIM_PIDS", "3:0=4243,4:0=4244,6:0=4246"}},
                       [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    unsigned count = 0;
    ASSERT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 4u);  // 4 H100s; the 2 MI300Xs and 2 Max 1550s are not NVML's
    ASSERT_EQ(n.nvmlDeviceGetCount(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 4u);
    for (unsigned i = 0; i < 4; ++i) {
      nvmlDevice_t h = nullptr;
      ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(i, &h), NVML_SUCCESS);
      char name[96] = {};
      ASSERT_EQ(n.nvmlDeviceGetName(h, name, sizeof name), NVML_SUCCESS);
      EXPECT_STREQ(name, "NVIDIA H100 80GB HBM3");
      unsigned index = 99;
      ASSERT_EQ(n.nvmlDeviceGetIndex(h, &index), NVML_SUCCESS);
      EXPECT_EQ(index, i);
      unsigned minor = 99;
      ASSERT_EQ(n.nvmlDeviceGetMinorNumber(h, &minor), NVML_SUCCESS);
      EXPECT_EQ(minor, i);
    }
    nvmlDevice_t none = nullptr;
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(4, &none), NVML_ERROR_INVALID_ARGUMENT);
    // The AMD GPU's PCI address is not an NVML device either.
    EXPECT_EQ(n.nvmlDeviceGetHandleByPciBusId_v2("00000000:9A:00.0", &none), NVML_ERROR_NOT_FOUND);
    ASSERT_EQ(n.nvmlDeviceGetHandleByPciBusId_v2("00000000:5D:00.0", &none), NVML_SUCCESS);  // GPU 3, an H100
    // Processes keep the scenario index: GPU 3's stand-in PID shows on NVML device 3.
    nvmlDevice_t h3 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(3, &h3), NVML_SUCCESS);
    EXPECT_EQ(h3, none);
    unsigned procs = 8;
    nvmlProcessInfo_t info[8] = {};
    ASSERT_EQ(n.nvmlDeviceGetComputeRunningProcesses_v3(h3, &procs, info), NVML_SUCCESS);
    ASSERT_EQ(procs, 1u);
    EXPECT_EQ(info[0].pid, 4243u);
    ASSERT_EQ(n.nvmlShutdown(), NVML_SUCCESS);
  }));
}

TEST(SimDriverVendors, FaultsKeepTheScenarioIndex) {
  // Scenario GPU 0 is AMD: NVML device 0 is scenario GPU 1, NVML device 1 scenario GPU 2.
  std::string path = temp_scenario(
      "gpus:\n  - model: MI300X\n  - model: H100\n  - model: H100\n"
      "faults:\n  - {function: nvmlDeviceGetPowerUsage, gpu: 2, error: 15}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    unsigned count = 0;
    ASSERT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 2u);
    nvmlDevice_t first = nullptr, second = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &first), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &second), NVML_SUCCESS);
    unsigned mw = 0;
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(first, &mw), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlDeviceGetPowerUsage(second, &mw), static_cast<nvmlReturn_t>(15));
  }));
  std::remove(path.c_str());
}

TEST(SimDriverVendors, AScenarioWithoutNvidiaGpusHasNone) {
  std::string path = temp_scenario("gpus:\n  - model: MI300X\n  - model: Arc A770\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    unsigned count = 9;
    ASSERT_EQ(n.nvmlDeviceGetCount_v2(&count), NVML_SUCCESS);
    EXPECT_EQ(count, 0u);
    nvmlDevice_t h = nullptr;
    EXPECT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_ERROR_INVALID_ARGUMENT);
  }));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gpuwatch::sim::testing
