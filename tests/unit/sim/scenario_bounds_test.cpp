// issue 16: scenario values out of range are load errors naming file:line and the key, never
// clamped; `sim import` never writes a value its scenario cannot load.
#include <gtest/gtest.h>

#include "sim/engine/capture_import.hpp"
#include "sim/engine/replay_source.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/value_limits.hpp"

namespace gpuwatch::sim {
namespace scenario_bounds_test {  // this test file's helpers (unity builds: no clash with another file's)

std::string error_of(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "bad.yaml", "");
  return sc ? std::string("(loaded)") : sc.error().message;
}

TEST(ScenarioBounds, AHugePowerDrawIsAnErrorNotAWrappedValue) {
  EXPECT_EQ(error_of("gpus:\n  - model: H100 SXM 80GB\n    values: {power.draw: 1e308}\n"),
            "bad.yaml:3: key 'power.draw': '1e308' is out of range: give at most 4294967.295 (watts, served in "
            "uint32 milliwatts)");
  EXPECT_EQ(error_of("gpus:\n  - model: H100 SXM 80GB\n    values: {power.draw: 700}\n"), "(loaded)");
}

TEST(ScenarioBounds, AFractionalCountIsAnError) {
  EXPECT_EQ(error_of("gpus:\n  - model: H100 SXM 80GB\n    count: 1.5\n"),
            "bad.yaml:3: key 'count': expected a whole number from 0 to 64, got '1.5'");
}

TEST(ScenarioBounds, NegativeDelaysAreErrors) {
  const std::string gpus = "gpus:\n  - model: H100 SXM 80GB\n";
  EXPECT_EQ(error_of(gpus + "faults:\n  - {function: nvmlDeviceGetName, delay_ms: -5}\n"),
            "bad.yaml:4: key 'delay_ms': expected 0 to 3600000, got '-5'");
  EXPECT_EQ(error_of(gpus + "faults:\n  - {function: nvmlDeviceGetName, hang_s: -1}\n"),
            "bad.yaml:4: key 'hang_s': expected 0 to 86400, got '-1'");
}

TEST(ScenarioBounds, AtMost256Processes) {
  std::string yaml = "gpus:\n  - model: H100 SXM 80GB\n    processes:\n";
  for (int i = 0; i < 257; ++i) yaml += "      - {command: \"p" + std::to_string(i) + "\"}\n";
  auto message = error_of(yaml);
  EXPECT_NE(message.find("257 processes: a scenario holds at most 256"), std::string::npos) << message;
}

TEST(ScenarioBounds, ALongValueIsCutInTheMessage) {
  const std::string huge(200'000, 'x');
  auto message = error_of("gpus:\n  - model: H100 SXM 80GB\n    count: " + huge + "\n");
  EXPECT_LT(message.size(), 600u);
  EXPECT_NE(message.find("…"), std::string::npos);
  EXPECT_EQ(clip_for_message(std::string(10, 'a')), std::string(10, 'a'));
  EXPECT_EQ(clip_for_message(std::string(300, 'a')), std::string(200, 'a') + "…");
}

TEST(CaptureImportBounds, AnInfiniteValueIsRefusedBeforeWriting) {
  auto yaml = import_capture_files({{"q.csv", "name, power.draw [W]\nNVIDIA H100 80GB HBM3, 1e999 W\n"}});
  ASSERT_FALSE(yaml);
  EXPECT_EQ(yaml.error().message, "q.csv:2: column 'power.draw': '1e999 W' is not a finite number");
}

TEST(CaptureImportBounds, AtMost256ProcessesAndLongCommandsAreCut) {
  std::string apps = "pid, process_name, used_gpu_memory [MiB]\n";
  for (int i = 1; i <= 257; ++i) apps += std::to_string(1000 + i) + ", python, 100 MiB\n";
  auto yaml = import_capture_files({{"q.csv", "name, pci.bus_id\nNVIDIA H100 80GB HBM3, 00000000:01:00.0\n"},
                                    {"apps.csv", apps}});
  ASSERT_FALSE(yaml);
  EXPECT_NE(yaml.error().message.find("more than 256 processes"), std::string::npos) << yaml.error().message;

  const std::string long_pid(200'000, '7');
  auto bad = import_capture_files({{"q.csv", "name, pci.bus_id\nNVIDIA H100 80GB HBM3, 00000000:01:00.0\n"},
                                   {"apps.csv", "pid, process_name, used_gpu_memory [MiB]\n" + long_pid + "x, python, 1 MiB\n"}});
  ASSERT_FALSE(bad);
  EXPECT_LT(bad.error().message.size(), 400u);
  EXPECT_NE(bad.error().message.find("…"), std::string::npos);
}

}  // namespace scenario_bounds_test
}  // namespace gpuwatch::sim

namespace gpuwatch::sim {
namespace scenario_bounds_test {  // this test file's helpers (unity builds: no clash with another file's)

// Replayed values are held to the same limits as `values:`: a recording or an inline row with
// an impossible number is a load error naming where, never a wrapped value on the wire.
TEST(ReplayBounds, InlineRowsAreRangeChecked) {
  const std::string head = "gpus:\n  - model: H100 SXM 80GB\n    phases:\n      - kind: replay\n        rows:\n";
  EXPECT_EQ(error_of(head + "          - {t: 0, power.draw: 1e308}\n"),
            "bad.yaml:6: key 'power.draw': '1e308' is out of range: give at most 4294967.295 (watts, served in "
            "uint32 milliwatts)");
  EXPECT_EQ(error_of(head + "          - {t: 0, power.draw: 300}\n"), "(loaded)");
}

TEST(ReplayBounds, RecordedSeriesValuesAreRangeChecked) {
  auto csv = read_recorded_series("timestamp, power.draw [W]\n2026/11/29 15:06:30.138, 1e308 W\n");
  ASSERT_FALSE(csv);
  EXPECT_NE(csv.error().message.find("line 2: column 'power.draw [W]': '1e308 W' is out of range"), std::string::npos)
      << csv.error().message;
  auto jsonl = read_recorded_series(R"({"time":"2026-11-29T15:06:30.138+00:00","index":0,"power_draw_w":1e308})" "\n");
  ASSERT_FALSE(jsonl);
  EXPECT_NE(jsonl.error().message.find("line 1: \"power_draw_w\": 1e+308 is out of range"), std::string::npos)
      << jsonl.error().message;
}

}  // namespace scenario_bounds_test
}  // namespace gpuwatch::sim
