#include "cli/duration_option.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace gpuwatch::cli {
namespace {

using std::chrono::milliseconds;

// Parses ARGS ("-i", "1s") with a status-like -i,--interval; returns the interval or the error.
std::string parse_interval(std::vector<std::string> args, milliseconds* out) {
  CLI::App app{"t", "gpuwatch"};
  add_duration_option(app, "-i,--interval", *out, "help", {.hint = "as gpustat"});
  args.insert(args.begin(), "gpuwatch");
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

// Issue 9: `status -i 1s` failed with "Value 1s not in range 0.000000 to 1797693134862315...".
TEST(DurationOption, Issue9EveryIntervalReadsTheOneGrammar) {
  for (auto [text, ms] : {std::pair{"1", 1000}, {"1s", 1000}, {"500ms", 500}, {"2m", 120'000}, {"1h", 3'600'000},
                          {"2.5", 2500}}) {
    milliseconds interval{0};
    EXPECT_EQ(parse_interval({"-i", text}, &interval), "") << text;
    EXPECT_EQ(interval, milliseconds(ms)) << text;
  }
  milliseconds interval{0};
  EXPECT_EQ(parse_interval({"--interval=1s"}, &interval), "");
  EXPECT_EQ(interval, milliseconds(1000));
}

TEST(DurationOption, ErrorsNameTheFlagAndShowTheGrammar) {
  milliseconds interval{0};
  const std::string error = parse_interval({"-i", "1x"}, &interval);
  EXPECT_NE(error.find("-i/--interval"), std::string::npos) << error;
  EXPECT_NE(error.find("500ms, 1s, 2m, 1h"), std::string::npos) << error;
  EXPECT_NE(error.find("as gpustat"), std::string::npos) << error;  // the hint
  EXPECT_LT(error.size(), 200u) << error;                            // no 300-digit range
  EXPECT_NE(parse_interval({"-i", "0"}, &interval), "");
}

TEST(DurationOption, BoundsAreCheckedAndShownInTheGrammar) {
  const DurationBounds pmon{.min = std::chrono::seconds(1), .max = std::chrono::seconds(10)};
  EXPECT_EQ(*read_duration_flag("-d/--delay", "10", pmon), milliseconds(10'000));
  auto low = read_duration_flag("-d/--delay", "500ms", pmon);
  ASSERT_FALSE(low);
  EXPECT_EQ(low.error().message, "-d/--delay: 500ms is out of range: give 1s to 10s");
  EXPECT_FALSE(read_duration_flag("-d/--delay", "11s", pmon));
}

TEST(DurationOption, FormatsDurationsInTheGrammar) {
  EXPECT_EQ(format_duration(milliseconds(500)), "500ms");
  EXPECT_EQ(format_duration(milliseconds(1000)), "1s");
  EXPECT_EQ(format_duration(milliseconds(90'000)), "90s");
  EXPECT_EQ(format_duration(milliseconds(120'000)), "2m");
  EXPECT_EQ(format_duration(milliseconds(86'400'000)), "24h");
}

TEST(DurationOption, GpuIdHintOnlyForWhatReadsAsADuration) {
  EXPECT_NE(gpu_id_hint("1s", "-d/--interval").find("-i is the GPU here"), std::string::npos);
  EXPECT_NE(gpu_id_hint("1s", "-d/--interval").find("-d/--interval"), std::string::npos);
  EXPECT_EQ(gpu_id_hint("GPU-abc", "-d/--interval"), "");
  EXPECT_EQ(gpu_id_hint("0,1", "-d/--interval"), "");
}

}  // namespace
}  // namespace gpuwatch::cli
