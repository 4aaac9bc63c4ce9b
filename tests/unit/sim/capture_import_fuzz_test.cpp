// What fuzz/capture_import_fuzz.cpp found in `sim import` (issue 16, part 4).
#include <gtest/gtest.h>

#include "sim/engine/capture_import.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace {

const char* kQueryGpu = "index, name\n0, NVIDIA H100 80GB HBM3\n";

TEST(CaptureImportFuzzFindings, ACudaVersionLineWithNothingAfterTheColonIsNoCudaVersion) {
  // raw.substr(raw.find(':') + 2) threw std::out_of_range out of `sim import` when the line
  // ended at its colon.
  for (const char* line : {"CUDA Version:", "CUDA Version", "CUDA Version :    "}) {
    auto yaml = import_capture_files(
        {{"q.csv", kQueryGpu}, {"q.txt", std::string("==============NVSMI LOG==============\n") + line + "\n"}});
    ASSERT_TRUE(yaml) << line << ": " << yaml.error().message;
    EXPECT_EQ(yaml->find("cuda_version"), std::string::npos) << *yaml;
  }
  auto yaml = import_capture_files(
      {{"q.csv", kQueryGpu}, {"q.txt", "==============NVSMI LOG==============\nCUDA Version:12.4 [Deprecated]\n"}});
  ASSERT_TRUE(yaml);
  EXPECT_NE(yaml->find("cuda_version: 12.4"), std::string::npos) << *yaml;
}

TEST(CaptureImportFuzzFindings, ALaterSampleFromACaptureWithOtherColumnsIsComparedByKey) {
  // The second capture's row of GPU 0 was compared column by column with the first one's:
  // a read past the end of the first row's values (ASan heap-buffer-overflow).
  auto yaml = import_capture_files({{"a.csv", kQueryGpu},
                                    {"b.csv", "index, name, temperature.gpu\n0, NVIDIA H100 80GB HBM3, 51\n"}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  EXPECT_NE(yaml->find("temperature.gpu: 51"), std::string::npos) << *yaml;
  auto scenario = parse_scenario(*yaml, "imported.yaml", "");
  EXPECT_TRUE(scenario) << scenario.error().message;
}

TEST(CaptureImportFuzzFindings, AHugeMigMemoryIsNoIntOverflow) {
  // (atoi("2147483647") + 1023) overflowed int (UBSan) naming the MIG profile.
  auto yaml = import_capture_files(
      {{"q.csv", "index, name, mig.mode.current\n0, NVIDIA H100 80GB HBM3, Enabled\n"},
       {"q.txt", "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n    MIG Device\n"
                 "        Shared FB Memory Usage\n            Total                     : 2147483647 MiB\n"}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  EXPECT_NE(yaml->find("profile: 1g.0gb"), std::string::npos) << *yaml;
  auto usual = import_capture_files(
      {{"q.csv", "index, name, mig.mode.current\n0, NVIDIA H100 80GB HBM3, Enabled\n"},
       {"q.txt", "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n    MIG Device\n"
                 "        Shared FB Memory Usage\n            Total                     : 40192 MiB\n"}});
  ASSERT_TRUE(usual);
  EXPECT_NE(usual->find("profile: 1g.40gb"), std::string::npos) << *usual;
}

TEST(CaptureImportFuzzFindings, AQueryTextLineIndentedDeeperThanEightLevelsIsSkipped) {
  // section[level - 1] read past the 8 section names kept for a line indented 36 spaces or more.
  auto yaml = import_capture_files(
      {{"q.csv", kQueryGpu},
       {"q.txt", "==============NVSMI LOG==============\nGPU 00000000:01:00.0\n" + std::string(40, ' ') + "Total : 1 MiB\n" +
                     std::string(400, ' ') + "Used : 2 MiB\n"}});
  ASSERT_TRUE(yaml) << yaml.error().message;
}

TEST(CaptureImportFuzzFindings, AnUnknownLongColumnNameIsCutInTheError) {
  // Found by the 10-minute run: a 2,000-character unknown header column was echoed whole.
  const std::string column = "ecc.errindex," + std::string(2000, 'x');
  auto yaml = import_capture_files({{"q.csv", "index, \"" + column + "\", name\n0, 1, A\n"}});
  ASSERT_FALSE(yaml);
  EXPECT_LT(yaml.error().message.size(), 400u) << yaml.error().message;
  EXPECT_NE(yaml.error().message.find("is not a known query name"), std::string::npos) << yaml.error().message;
}

}  // namespace
}  // namespace gpuwatch::sim
