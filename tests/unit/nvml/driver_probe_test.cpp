#include "nvml/driver_probe.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::nvml {
namespace driver_probe_test {

TEST(DoctorNvmlProbe, FindsTheNvmlCodeInTheLoadersMessage) {
  EXPECT_EQ(nvml_error_in_message("NVML found (x) but initialisation failed: Driver/library version mismatch (NVML error 18).\n"
                                  "Check ..."),
            18);
  EXPECT_EQ(nvml_error_in_message("NVML library not found: cannot load x"), 0);
}

TEST(DoctorNvmlProbe, AMissingLibraryIsReportedNotThrown) {
  auto facts = probe_nvml({"/nonexistent/libnvidia-ml.so.1", std::chrono::milliseconds(1000)});
  EXPECT_FALSE(facts.loaded);
  EXPECT_TRUE(facts.answered);
  EXPECT_FALSE(facts.library_found);
  EXPECT_NE(facts.error.find("not found"), std::string::npos) << facts.error;
  EXPECT_EQ(facts.error.find('\n'), std::string::npos);  // the first line only
}

}  // namespace driver_probe_test
}  // namespace gpuwatch::nvml
