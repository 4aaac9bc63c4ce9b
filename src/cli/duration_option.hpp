#pragma once
// Every interval and duration flag reads one grammar, core::parse_duration's: "1" (seconds),
// "2.5", "500ms", "1s", "2m", "1h". A bad value is a usage error that names the flag and
// shows the grammar, e.g. "-i/--interval: cannot read the duration '1x': give seconds ...".
#include <chrono>
#include <string>

#include "core/result.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpuwatch::cli {

struct DurationBounds {
  std::chrono::milliseconds min{1};
  std::chrono::milliseconds max{std::chrono::hours(24 * 365)};
  std::string hint;  // appended to errors, e.g. what -i means in this command
};

// Adds option NAMES ("-i,--interval") that stores its value in TARGET (type name DURATION).
CLI::Option* add_duration_option(CLI::App& app, const std::string& names, std::chrono::milliseconds& target,
                                 const std::string& help, DurationBounds bounds = {});

// TEXT, the value of option NAMES_SHOWN ("-d/--delay"), read as a duration within BOUNDS;
// the error message names the option. Pure: what add_duration_option checks.
core::Result<std::chrono::milliseconds> read_duration_flag(const std::string& names_shown, const std::string& text,
                                                           const DurationBounds& bounds);

// "1s", "500ms", "2m", "1h": a duration as the grammar writes it, for messages.
std::string format_duration(std::chrono::milliseconds duration);

}  // namespace gpuwatch::cli

namespace gpuwatch::cli {

// When `-i TEXT` did not name a GPU in a command where -i is the GPU (query, dmon, pmon, as
// nvidia-smi) but TEXT reads as a duration: " (-i is the GPU here, as in nvidia-smi; the
// interval is INTERVAL_FLAG)", else "".
std::string gpu_id_hint(const std::string& text, const std::string& interval_flag);

}  // namespace gpuwatch::cli
