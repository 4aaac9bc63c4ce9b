// The stand-in driver's NVLink fabric info (both layouts) and GPU recovery action (field
// 230), from the catalog and from scenario events, through dlopen.
#include <cstring>

#include "integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

nvmlFieldValue_t recovery_action(Nvml& n, nvmlDevice_t h) {
  nvmlFieldValue_t v{};
  v.fieldId = NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
  EXPECT_EQ(n.nvmlDeviceGetFieldValues(h, 1, &v), NVML_SUCCESS);
  return v;
}

TEST(SimDriverFabric, HopperSxmCompletedOthersNotSupported) {
  std::string path = temp_scenario(
      "gpus:\n  - model: H100 SXM 80GB\n  - model: L4\n  - model: H200\n    values: {fabric.state: In Progress}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h100 = nullptr, l4 = nullptr, h200 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h100), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &l4), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(2, &h200), NVML_SUCCESS);
    // The versioned call: version 2 only.
    nvmlGpuFabricInfoV_t v2{};
    v2.version = nvmlGpuFabricInfo_v2;
    ASSERT_EQ(n.nvmlDeviceGetGpuFabricInfoV(h100, &v2), NVML_SUCCESS);
    EXPECT_EQ(v2.state, NVML_GPU_FABRIC_STATE_COMPLETED);
    EXPECT_EQ(v2.status, NVML_SUCCESS);
    EXPECT_EQ(v2.cliqueId, 0u);
    EXPECT_EQ(v2.healthMask, 0u);
    v2.version = 0x03000028;  // a newer layout than this driver knows
    EXPECT_EQ(n.nvmlDeviceGetGpuFabricInfoV(h100, &v2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    EXPECT_EQ(n.nvmlDeviceGetGpuFabricInfoV(h100, nullptr), NVML_ERROR_INVALID_ARGUMENT);
    // The r535 layout writes 28 bytes and no more.
    unsigned char raw[64];
    std::memset(raw, 0xAB, sizeof raw);
    ASSERT_EQ(n.nvmlDeviceGetGpuFabricInfo(h100, reinterpret_cast<nvmlGpuFabricInfo_t*>(raw)), NVML_SUCCESS);
    nvmlGpuFabricInfo_t v1{};
    std::memcpy(&v1, raw, sizeof v1);
    EXPECT_EQ(v1.state, NVML_GPU_FABRIC_STATE_COMPLETED);
    EXPECT_EQ(raw[sizeof(nvmlGpuFabricInfo_t)], 0xAB);
    // A PCIe L4 has no fabric; an override says the H200 is still registering.
    EXPECT_EQ(n.nvmlDeviceGetGpuFabricInfo(l4, &v1), NVML_ERROR_NOT_SUPPORTED);
    v2.version = nvmlGpuFabricInfo_v2;
    EXPECT_EQ(n.nvmlDeviceGetGpuFabricInfoV(l4, &v2), NVML_ERROR_NOT_SUPPORTED);
    ASSERT_EQ(n.nvmlDeviceGetGpuFabricInfoV(h200, &v2), NVML_SUCCESS);
    EXPECT_EQ(v2.state, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
    // Every catalog model starts without a recovery action.
    nvmlFieldValue_t r = recovery_action(n, l4);
    EXPECT_EQ(r.nvmlReturn, NVML_SUCCESS);
    EXPECT_EQ(r.valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    EXPECT_EQ(r.value.uiVal, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_NONE));
  }));
  std::remove(path.c_str());
}

TEST(SimDriverFabric, LegacyLibraryHasNoFabricApi) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "old_driver"}}, [](Nvml& n) {
    EXPECT_EQ(dlsym(n.lib, "nvmlDeviceGetGpuFabricInfo"), nullptr);
    EXPECT_EQ(dlsym(n.lib, "nvmlDeviceGetGpuFabricInfoV"), nullptr);
  }, legacy_driver_dir()));
}

TEST(SimDriverRecoveryAction, EventsRaiseAndClearIt) {
  // time_scale 20: scenario second 10 is 0.5 s of wall time after the start.
  std::string path = temp_scenario(
      "time_scale: 20\ngpus:\n  - model: a100\n    events:\n"
      "      - {at: 10s, xid: 79, recovery_action: Node Reboot}\n"
      "      - {at: 20s, type: recovery_action, recovery_action: Drain and Reset}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"GPUWATCH_SIM_EPOCH_MS", std::to_string(now_ms())}},
                       [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    EXPECT_EQ(recovery_action(n, h).value.uiVal, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_NONE));
    nvmlEventSet_t set = nullptr;
    ASSERT_EQ(n.nvmlEventSetCreate(&set), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceRegisterEvents(h, nvmlEventTypeXidCriticalError, set), NVML_SUCCESS);
    nvmlEventData_t ev{};
    ASSERT_EQ(n.nvmlEventSetWait_v2(set, &ev, 5000), NVML_SUCCESS);
    EXPECT_EQ(ev.eventData, 79u);
    EXPECT_EQ(recovery_action(n, h).value.uiVal, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_NODE_REBOOT));
    // The recovery_action-only event delivers nothing, but changes the action at 20 s.
    EXPECT_EQ(n.nvmlEventSetWait_v2(set, &ev, 700), NVML_ERROR_TIMEOUT);
    EXPECT_EQ(recovery_action(n, h).value.uiVal, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET));
    EXPECT_EQ(n.nvmlEventSetFree(set), NVML_SUCCESS);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverRecoveryAction, UnknownWordIsAScenarioError) {
  std::string path = temp_scenario("gpus:\n  - model: a100\n    events:\n      - {at: 1s, xid: 48, recovery_action: Reboot}\n");
  std::string err = temp_scenario("");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    EXPECT_EQ(n.nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  }, driver_dir(), err));
  std::ifstream in(err);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find("recovery_action"), std::string::npos) << all;
  EXPECT_NE(all.find("Drain and Reset"), std::string::npos) << all;
  std::remove(path.c_str());
  std::remove(err.c_str());
}

}  // namespace
}  // namespace gpuwatch::sim::testing
