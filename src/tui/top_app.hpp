#pragma once
// The `top` loop: reads the data source every interval (never NVML itself), builds a frame,
// draws it, and answers keys and the mouse at once between refreshes. Signals are sent here
// (kill(2), after the confirmation; refused with --readonly or when the user may not signal).
#include <chrono>
#include <string>

#include "tui/config.hpp"
#include "tui/data_source.hpp"

namespace gpuwatch::tui {

inline constexpr std::chrono::milliseconds kMinInterval{250};

struct TopOptions {
  std::chrono::milliseconds interval{1000};
  bool readonly = false;
  bool color = true;            // false: NO_COLOR / --no-color (the mono theme only)
  std::string config_path;      // where `w` saves
  TopConfig config;             // the loaded file with the flags applied
  std::string title;            // "gpuwatch top  HOST" (the clock and the driver are added)
  std::string note;             // "[simulated: demo]"
};

struct TopResult {
  int exit_code = 0;
  bool source_stopped = true;  // false: a sampling thread is stuck in NVML (exit without unloading it)
};

TopResult run_top(DataSource& source, const TopOptions& options);

}  // namespace gpuwatch::tui
