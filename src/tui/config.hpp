#pragma once
// top's settings file: $XDG_CONFIG_HOME/gpuwatch/top.yaml (else ~/.config/gpuwatch/top.yaml),
// written by the `w` key and read at start (command-line flags win). YAML, as every file a user
// writes (STYLE.md). Unknown keys and bad values are errors that name the file and the key.
//
//   layout: auto        # auto, panels, compact, lines
//   theme: default      # default, light, mono
//   charts: true
//   sort: gpu_memory    # pid, user, gpu, type, gpu_percent, gpu_memory, cpu_percent, rss, time, owner, command, host
//   descending: true
//   tree: false         # the tree view (t)
#include <optional>
#include <string>

#include "core/result.hpp"
#include "tui/layout.hpp"
#include "tui/process_table.hpp"
#include "tui/theme.hpp"

namespace gpuwatch::tui {

struct TopConfig {
  std::optional<LayoutKind> layout;
  std::optional<Theme> theme;
  std::optional<bool> charts;
  std::optional<Column> sort;
  std::optional<bool> descending;
  std::optional<bool> tree;
};

// The path from the environment: XDG_CONFIG_HOME and HOME (either may be null); "" when neither.
std::string config_path(const char* xdg_config_home, const char* home);

core::Result<TopConfig> parse_config(const std::string& text, const std::string& source);
std::string format_config(const TopConfig& config);

// A missing file is an empty config.
core::Result<TopConfig> load_config(const std::string& path);
// Creates the folder when needed; writes through a temporary file and a rename.
core::Result<void> save_config(const std::string& path, const TopConfig& config);

}  // namespace gpuwatch::tui
