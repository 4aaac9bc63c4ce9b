#include "doctor/render.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gpuwatch::doctor {
namespace render_test {

DoctorReport sample_report() {
  DoctorReport report;
  report.summary = "1 problem (first: kernel.module).";
  report.exit_code = 2;
  report.checks.push_back({"kernel.module", "NVIDIA kernel module", Verdict::Problem,
                           "The NVIDIA kernel module is not loaded: /proc/driver/nvidia/version is missing and "
                           "/proc/modules lists no nvidia module; averyveryveryveryveryveryveryveryveryveryveryvery"
                           "veryveryveryveryveryverylongwordthatcannotfitonalineofeightycolumnsatall.",
                           "sudo modprobe nvidia", {}});
  report.checks.push_back({"node.xids", "Xids in the kernel log", Verdict::Warning,
                           "GPU 0: \x1b]52;c;aGk=\x07 from the log \xff", "", {0}});
  report.checks.push_back({"gpu.clocks", "Clocks", Verdict::Skipped, "NVML is unavailable.", "", {}});
  report.checks.push_back({"gpu.fabric", "Fabric", Verdict::Skipped, "NVML is unavailable.", "", {}});
  return report;
}

TEST(DoctorRender, TextFitsEightyColumnsAndEncodesWhatItQuotes) {
  const std::string text = render_text(sample_report());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    EXPECT_LE(end - start, 80u) << text.substr(start, end - start);
    start = end + 1;
  }
  EXPECT_NE(text.find(" PROBLEM  NVIDIA kernel module [kernel.module]"), std::string::npos) << text;
  EXPECT_NE(text.find("Fix: sudo modprobe nvidia"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // no escape sequence reaches the terminal
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_NE(text.find("\\x1b]52"), std::string::npos) << text;
  // Skipped checks for one reason are one entry.
  EXPECT_NE(text.find(" SKIPPED  gpu.clocks, gpu.fabric\n"), std::string::npos) << text;
}

TEST(DoctorRender, JsonHasTheSameChecks) {
  auto doc = nlohmann::json::parse(render_json(sample_report()));
  EXPECT_EQ(doc["exit_code"], 2);
  ASSERT_EQ(doc["checks"].size(), 4u);
  EXPECT_EQ(doc["checks"][0]["id"], "kernel.module");
  EXPECT_EQ(doc["checks"][0]["verdict"], "problem");
  EXPECT_EQ(doc["checks"][0]["fix"], "sudo modprobe nvidia");
  EXPECT_TRUE(doc["checks"][1]["fix"].is_null());
  EXPECT_EQ(doc["checks"][1]["gpus"], nlohmann::json::array({0}));
  EXPECT_EQ(doc["checks"][2]["verdict"], "skipped");
}

}  // namespace render_test
}  // namespace gpuwatch::doctor
