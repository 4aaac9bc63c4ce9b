// What fuzz/scenario_yaml_fuzz.cpp found (issue 16, part 4): numbers cast to integers out of
// their range (undefined behaviour, UBSan float-cast-overflow) and durations that overflow to
// infinity. Each is now an error naming the file, the line, the key and the value.
#include <gtest/gtest.h>

#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace scenario_parser_fuzz_test {  // this test file's helpers (unity builds: no clash with another file's)

std::string error_of(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "bad.yaml", "");
  return sc ? std::string("(loaded)") : sc.error().message;
}

const std::string kGpu = "gpus:\n  - model: H100 SXM 80GB\n";

TEST(ScenarioParserFuzzFindings, SeedsAreWholeNumbersInRange) {
  EXPECT_EQ(error_of("seed: -1\n"), "bad.yaml:1: key 'seed': expected a whole number from 0 to 9007199254740992, got '-1'");
  EXPECT_EQ(error_of("seed: 1e20\n"), "bad.yaml:1: key 'seed': expected a whole number from 0 to 9007199254740992, got '1e20'");
  EXPECT_EQ(error_of(kGpu + "    seed: -5\n"),
            "bad.yaml:3: key 'seed': expected a whole number from 0 to 9007199254740992, got '-5'");
  EXPECT_EQ(error_of("seed: 42\n" + kGpu + "    seed: 7\n"), "(loaded)");
}

TEST(ScenarioParserFuzzFindings, XidsGpusAndMigIdsAreWholeNumbersInRange) {
  EXPECT_EQ(error_of(kGpu + "    events: [{at: 1s, xid: 1e20}]\n"),
            "bad.yaml:3: key 'xid': expected a whole number from 0 to 4294967295, got '1e20'");
  EXPECT_EQ(error_of(kGpu + "    phases: [{kind: ecc_errors, xid: -1}]\n"),
            "bad.yaml:3: key 'xid': expected a whole number from 0 to 4294967295, got '-1'");
  EXPECT_EQ(error_of(kGpu + "faults:\n  - {function: nvmlDeviceGetName, gpu: 1e20, error: 3}\n"),
            "bad.yaml:4: key 'gpu': no GPU 1e20 (the scenario has 1)");
  EXPECT_EQ(error_of(kGpu + "faults:\n  - {function: nvmlDeviceGetName, gpu: 0.5, error: 3}\n"),
            "bad.yaml:4: key 'gpu': no GPU 0.5 (the scenario has 1)");
  EXPECT_EQ(error_of(kGpu + "faults:\n  - {function: nvmlDeviceGetName, gpu: 0, error: 3}\n"), "(loaded)");
  EXPECT_EQ(error_of("gpus:\n  - model: H100 SXM 80GB\n    mig: [{profile: 1g.10gb, gpu_instance: -3}]\n"),
            "bad.yaml:3: key 'gpu_instance': expected a whole number from 0 to 4294967295, got '-3'");
}

TEST(ScenarioParserFuzzFindings, ErrorCodesAndCudaVersionsAreInRange) {
  EXPECT_EQ(error_of("driver: {init_error: 1e20}\n"),
            "bad.yaml:1: key 'init_error': expected a whole number from 0 to 999, got '1e20'");
  EXPECT_EQ(error_of(kGpu + "faults:\n  - {function: nvmlDeviceGetName, error: -4}\n"),
            "bad.yaml:4: key 'error': expected a whole number from 0 to 999, got '-4'");
  EXPECT_EQ(error_of("driver: {cuda_version: 1e20}\n"), "bad.yaml:1: key 'cuda_version': expected e.g. 12.2 or 12020");
  EXPECT_EQ(error_of("driver: {cuda_version: 12.4, init_error: 9}\n"), "(loaded)");
}

TEST(ScenarioParserFuzzFindings, ADurationThatOverflowsToInfinityIsAnError) {
  EXPECT_EQ(error_of(kGpu + "    phases: [{kind: training, duration: 1e308h}]\n"),
            "bad.yaml:3: key 'duration': expected a finite duration, got '1e308h'");
  EXPECT_EQ(error_of(kGpu + "    events: [{at: 1e307m, xid: 79}]\n"),
            "bad.yaml:3: key 'at': expected a finite duration, got '1e307m'");
}

}  // namespace scenario_parser_fuzz_test
}  // namespace gpuwatch::sim
