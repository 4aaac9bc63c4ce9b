#include "cli/open_nvml.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::cli {
namespace {

TEST(OpenNvml, MissingLibraryGivesNoLibrary) {
  GlobalOptions global;
  global.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_EQ(open_nvml_for_command(global), nullptr);
}

}  // namespace
}  // namespace gpuwatch::cli
