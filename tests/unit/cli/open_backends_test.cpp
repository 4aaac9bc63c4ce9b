#include "cli/open_backends.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::cli {
namespace {

TEST(OpenBackends, MissingLibraryGivesNoBackends) {
  GlobalOptions global;
  global.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_EQ(open_backends_for_command(global), nullptr);
}

}  // namespace
}  // namespace gpuwatch::cli
