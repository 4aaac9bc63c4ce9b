#include "nvml/nvml_library.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace gpuwatch::nvml {
namespace {

TEST(NvmlLibrary, MissingLibraryIsLibraryNotFoundWithAdvice) {
  auto lib = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, kLoadLibraryNotFound);
  EXPECT_NE(lib.error().message.find("driver is installed"), std::string::npos);
  EXPECT_NE(lib.error().message.find("--gpus"), std::string::npos);
}

TEST(NvmlLibrary, ALibraryWithoutNvmlSymbolsIsRejected) {
  auto lib = NvmlLibrary::open("libm.so.6");
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, kLoadSymbolMissing);
  EXPECT_NE(lib.error().message.find("nvmlInit"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::nvml

namespace gpuwatch::nvml {
namespace {

// The loader against the simulated driver built next to the tests (link-level seam).
TEST(NvmlLibrary, OpensTheSimulatedDriverAndResolvesNewestSymbols) {
  setenv("GPUWATCH_SIM_SCENARIO", "idle", 0);
  auto lib = NvmlLibrary::open(std::string(GPUWATCH_SIM_DRIVER_DIR) + "/libnvidia-ml.so.1");
  ASSERT_TRUE(lib) << lib.error().message;
  const auto& fns = (*lib)->api().raw();
  EXPECT_NE(fns.nvmlInit_v2, nullptr);
  EXPECT_NE(fns.nvmlDeviceGetMemoryInfo_v2, nullptr);
  EXPECT_NE(fns.nvmlDeviceGetComputeRunningProcesses_v3, nullptr);
  unsigned count = 0;
  EXPECT_EQ((*lib)->api().device_count(&count), NVML_SUCCESS);
  EXPECT_GE(count, 1u);
  EXPECT_EQ((*lib)->api().error_string(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
}

}  // namespace
}  // namespace gpuwatch::nvml
