#include "nvml/nvml_backend.hpp"

#include <gtest/gtest.h>

#include "nvml/field_readers.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::nvml {
namespace nvml_backend_test {

using core::ErrorReason;

TEST(NvmlBackend, NvmlCodesMapToReasonsAndKeepTheCode) {
  EXPECT_EQ(error_from_nvml(NVML_SUCCESS), core::ReadError{});
  EXPECT_EQ(error_from_nvml(NVML_ERROR_GPU_IS_LOST), (core::ReadError{ErrorReason::GpuLost, NVML_ERROR_GPU_IS_LOST}));
  EXPECT_EQ(error_from_nvml(NVML_ERROR_DEPRECATED).reason, ErrorReason::Deprecated);
  EXPECT_EQ(error_from_nvml(NVML_ERROR_LIB_RM_VERSION_MISMATCH).reason, ErrorReason::DriverMismatch);
  EXPECT_EQ(error_from_nvml(NVML_ERROR_UNKNOWN), (core::ReadError{ErrorReason::Other, NVML_ERROR_UNKNOWN}));
}

TEST(NvmlBackend, EnumeratesAndNamesItsErrorsAsNvmlDoes) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  fake.devices[1].handle_rc = NVML_ERROR_GPU_IS_LOST;
  NvmlBackend backend(testing::make_fake_functions(fake));
  EXPECT_EQ(backend.vendor(), core::Vendor::Nvidia);
  unsigned count = 0;
  ASSERT_TRUE(backend.device_count(&count).ok());
  EXPECT_EQ(count, 2u);
  backend::DeviceHandle dev;
  ASSERT_TRUE(backend.handle_by_index(0, &dev).ok());
  EXPECT_EQ(dev.owner, &backend);
  EXPECT_TRUE(dev);
  EXPECT_TRUE(backend.last_error().ok());
  EXPECT_EQ(backend.handle_by_index(1, &dev).reason, ErrorReason::GpuLost);
  EXPECT_FALSE(dev);
  EXPECT_EQ(backend.last_error().reason, ErrorReason::GpuLost);  // the latest failure is remembered
  EXPECT_EQ(backend.error_of(ErrorReason::Timeout), (core::ReadError{ErrorReason::Timeout, NVML_ERROR_TIMEOUT}));
  EXPECT_FALSE(backend.has_sim_clock());  // over a function table: not the simulator
}

}  // namespace nvml_backend_test
}  // namespace gpuwatch::nvml
