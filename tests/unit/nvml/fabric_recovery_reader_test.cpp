// Reading the NVLink fabric state (both layouts) and the GPU recovery action, and showing
// them as nvidia-smi does.
#include <gtest/gtest.h>

#include <cstring>

#include "core/field_format.hpp"
#include "core/field_table.hpp"
#include "nvml/field_readers.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::nvml {
namespace fabric_recovery_reader_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldStatus;

nvmlGpuFabricState_t g_state = NVML_GPU_FABRIC_STATE_COMPLETED;
nvmlReturn_t g_v2_rc = NVML_SUCCESS;
int g_v1_calls = 0;

struct Fixture {
  testing::FakeNvml fake;
  NvmlApi api;
  nvmlDevice_t dev = nullptr;
  core::DeviceSnapshot device;
  explicit Fixture(bool with_v2 = true) : api(functions(with_v2)) { api.handle_by_index(0, &dev); }
  NvmlFunctions functions(bool with_v2) {
    fake.devices.resize(1);
    NvmlFunctions f = testing::make_fake_functions(fake);
    g_v1_calls = 0;
    f.nvmlErrorString = [](nvmlReturn_t rc) -> const char* { return rc == NVML_SUCCESS ? "Success" : "Unknown Error"; };
    if (with_v2) {
      f.nvmlDeviceGetGpuFabricInfoV = [](nvmlDevice_t, nvmlGpuFabricInfoV_t* info) {
        if (info->version != nvmlGpuFabricInfo_v2) return nvmlReturn_t{NVML_ERROR_ARGUMENT_VERSION_MISMATCH};
        if (g_v2_rc != NVML_SUCCESS) return g_v2_rc;
        for (unsigned i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) info->clusterUuid[i] = static_cast<unsigned char>(i);
        info->status = NVML_SUCCESS;
        info->cliqueId = 7;
        info->state = g_state;
        return nvmlReturn_t{NVML_SUCCESS};
      };
    }
    f.nvmlDeviceGetGpuFabricInfo = [](nvmlDevice_t, nvmlGpuFabricInfo_t* info) {
      ++g_v1_calls;
      std::memset(info->clusterUuid, 0, sizeof info->clusterUuid);
      info->status = NVML_SUCCESS;
      info->cliqueId = 1;
      info->state = NVML_GPU_FABRIC_STATE_COMPLETED;
      return nvmlReturn_t{NVML_SUCCESS};
    };
    f.nvmlDeviceGetFieldValues = [](nvmlDevice_t, int count, nvmlFieldValue_t* values) {
      for (int i = 0; i < count; ++i) {
        values[i].nvmlReturn = values[i].fieldId == NVML_FI_DEV_GET_GPU_RECOVERY_ACTION ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
        values[i].valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
        values[i].value.uiVal = NVML_GPU_RECOVERY_ACTION_GPU_RESET;
      }
      return nvmlReturn_t{NVML_SUCCESS};
    };
    return f;
  }
  void read_fabric() {
    read_source(api, dev, core::Source::GpuFabricInfo,
                std::vector<FieldId>{FieldId::FabricState, FieldId::FabricStatus, FieldId::FabricCliqueId,
                                     FieldId::FabricClusterUuid},
                device);
  }
  std::string shown(FieldId id) {
    const auto& info = core::field_info(id);
    return core::format_value(info.display, *device.get(id).value, false);
  }
};

TEST(FabricReader, VersionedCallGivesStateStatusCliqueAndCluster) {
  g_state = NVML_GPU_FABRIC_STATE_COMPLETED;
  g_v2_rc = NVML_SUCCESS;
  Fixture f;
  f.read_fabric();
  ASSERT_TRUE(f.device.get(FieldId::FabricState).ok());
  EXPECT_EQ(f.device.get(FieldId::FabricState).as_int(), 3);
  EXPECT_EQ(f.shown(FieldId::FabricState), "Completed");
  EXPECT_EQ(f.shown(FieldId::FabricStatus), "Success");  // nvmlErrorString(status), as nvidia-smi prints it
  EXPECT_EQ(f.device.get(FieldId::FabricCliqueId).as_uint(), 7u);
  EXPECT_EQ(f.device.get(FieldId::FabricClusterUuid).as_string(), "00010203-0405-0607-0809-0a0b0c0d0e0f");
  EXPECT_EQ(g_v1_calls, 0);
}

TEST(FabricReader, StillRegisteringHasAStateButNoStatusYet) {
  g_state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;
  g_v2_rc = NVML_SUCCESS;
  Fixture f;
  f.read_fabric();
  EXPECT_EQ(f.shown(FieldId::FabricState), "In Progress");
  EXPECT_EQ(f.device.get(FieldId::FabricStatus).status, FieldStatus::NotApplicable);
  EXPECT_FALSE(f.device.get(FieldId::FabricCliqueId).value.has_value());
}

TEST(FabricReader, FallsBackToTheR535CallAndNoFabricIsNotSupported) {
  g_state = NVML_GPU_FABRIC_STATE_COMPLETED;
  Fixture without_v2(false);
  without_v2.read_fabric();
  EXPECT_EQ(without_v2.device.get(FieldId::FabricCliqueId).as_uint(), 1u);
  EXPECT_EQ(g_v1_calls, 1);

  g_v2_rc = NVML_ERROR_NOT_SUPPORTED;  // a PCIe board: both calls say so
  Fixture pcie;
  pcie.api = NvmlApi([&] {
    NvmlFunctions fns = pcie.api.raw();
    fns.nvmlDeviceGetGpuFabricInfo = [](nvmlDevice_t, nvmlGpuFabricInfo_t*) { return nvmlReturn_t{NVML_ERROR_NOT_SUPPORTED}; };
    return fns;
  }());
  pcie.read_fabric();
  EXPECT_EQ(pcie.device.get(FieldId::FabricState).status, FieldStatus::NotSupported);
  EXPECT_FALSE(pcie.device.get(FieldId::FabricState).value.has_value());
  g_v2_rc = NVML_SUCCESS;
}

TEST(RecoveryActionReader, FieldValue230AsNvidiaSmiWords) {
  Fixture f;
  read_source(f.api, f.dev, core::Source::FieldValues, std::vector<FieldId>{FieldId::GpuRecoveryAction}, f.device);
  ASSERT_TRUE(f.device.get(FieldId::GpuRecoveryAction).ok());
  EXPECT_EQ(f.device.get(FieldId::GpuRecoveryAction).as_int(), 1);
  EXPECT_EQ(f.shown(FieldId::GpuRecoveryAction), "GPU Reset");
  EXPECT_EQ(core::format_value(core::Display::RecoveryAction, core::FieldValue{std::int64_t{0}}, false), "None");
  EXPECT_EQ(core::format_value(core::Display::RecoveryAction, core::FieldValue{std::int64_t{4}}, false),
            "Drain and Reset");
  EXPECT_EQ(core::format_value(core::Display::FabricState, core::FieldValue{std::int64_t{0}}, false), "Not Supported");
}

}  // namespace fabric_recovery_reader_test
}  // namespace gpuwatch::nvml
