#include "nvml/nvml_library.hpp"

#include <gtest/gtest.h>

#include <cstdio>
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

// The loader against the simulated driver built next to the tests (link-level seam). In a child
// process (a death test): the driver, once loaded with the `idle` scenario, would otherwise stay
// in this process and answer the SimDriver* tests' forked children when unit_tests runs as one
// process (ctest runs one test a process, so only a single-process run saw it).
TEST(NvmlLibrary, OpensTheSimulatedDriverAndResolvesNewestSymbols) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto open_and_check = [] {
    ::setenv("GPUWATCH_SIM_SCENARIO", "idle", 1);
    auto lib = NvmlLibrary::open(std::string(GPUWATCH_SIM_DRIVER_DIR) + "/libnvidia-ml.so.1");
    if (!lib) {
      std::fprintf(stderr, "open failed: %s\n", lib.error().message.c_str());
      std::exit(1);
    }
    const auto& fns = (*lib)->api().raw();
    unsigned count = 0;
    const bool symbols = fns.nvmlInit_v2 != nullptr && fns.nvmlDeviceGetMemoryInfo_v2 != nullptr &&
                         fns.nvmlDeviceGetComputeRunningProcesses_v3 != nullptr;
    const bool counted = (*lib)->api().device_count(&count) == NVML_SUCCESS && count >= 1;
    const bool strings = (*lib)->api().error_string(NVML_ERROR_GPU_IS_LOST) == "GPU is lost";
    std::fprintf(stderr, "symbols=%d counted=%d strings=%d\n", symbols, counted, strings);
    std::exit(symbols && counted && strings ? 0 : 1);
  };
  EXPECT_EXIT(open_and_check(), ::testing::ExitedWithCode(0), "symbols=1 counted=1 strings=1");
}

}  // namespace
}  // namespace gpuwatch::nvml
