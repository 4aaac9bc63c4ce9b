#include "tui/config.hpp"
#include "core/bounded_read.hpp"
#include "core/safe_file.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuwatch::tui {

std::string config_path(const char* xdg_config_home, const char* home) {
  if (xdg_config_home && *xdg_config_home == '/') return std::string(xdg_config_home) + "/gpuwatch/top.yaml";
  if (home && *home) return std::string(home) + "/.config/gpuwatch/top.yaml";
  return "";
}

core::Result<TopConfig> parse_config(const std::string& text, const std::string& source) {
  TopConfig config;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return core::make_error(source + ": not valid YAML: " + e.what());
  }
  if (!root || root.IsNull()) return config;
  if (!root.IsMap()) return core::make_error(source + ": expected a mapping of settings (layout: auto, theme: mono ...)");
  auto scalar = [&](const YAML::Node& node, const std::string& key) -> core::Result<std::string> {
    if (!node.IsScalar()) return core::make_error(source + ": " + key + ": expected a single value");
    return node.as<std::string>();
  };
  auto boolean = [&](const YAML::Node& node, const std::string& key) -> core::Result<bool> {
    auto text_value = scalar(node, key);
    if (!text_value) return text_value.error();
    if (*text_value == "true") return true;
    if (*text_value == "false") return false;
    return core::make_error(source + ": " + key + ": expected true or false, not '" + *text_value + "'");
  };
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>();
    const YAML::Node& node = item.second;
    if (key == "layout") {
      auto v = scalar(node, key);
      if (!v) return v.error();
      config.layout = layout_from_string(*v);
      if (!config.layout) return core::make_error(source + ": layout: '" + *v + "' is not one of auto, panels, compact, lines");
    } else if (key == "theme") {
      auto v = scalar(node, key);
      if (!v) return v.error();
      config.theme = theme_from_string(*v);
      if (!config.theme) return core::make_error(source + ": theme: '" + *v + "' is not one of default, light, mono");
    } else if (key == "charts") {
      auto v = boolean(node, key);
      if (!v) return v.error();
      config.charts = *v;
    } else if (key == "sort") {
      auto v = scalar(node, key);
      if (!v) return v.error();
      config.sort = column_from_key(*v);
      if (!config.sort) {
        std::string known;
        for (const auto& c : process_columns()) known += (known.empty() ? "" : ", ") + std::string(c.key);
        return core::make_error(source + ": sort: '" + *v + "' is not a column (" + known + ")");
      }
    } else if (key == "descending") {
      auto v = boolean(node, key);
      if (!v) return v.error();
      config.descending = *v;
    } else if (key == "tree") {
      auto v = boolean(node, key);
      if (!v) return v.error();
      config.tree = *v;
    } else {
      return core::make_error(source + ": unknown setting '" + key +
                              "' (known: layout, theme, charts, sort, descending, tree)");
    }
  }
  return config;
}

std::string format_config(const TopConfig& config) {
  std::string out = "# gpuwatch top settings (saved with the w key; see docs/top.md)\n";
  if (config.layout) out += "layout: " + std::string(to_string(*config.layout)) + "\n";
  if (config.theme) out += "theme: " + std::string(to_string(*config.theme)) + "\n";
  if (config.charts) out += std::string("charts: ") + (*config.charts ? "true" : "false") + "\n";
  if (config.sort) out += "sort: " + std::string(column_spec(*config.sort).key) + "\n";
  if (config.descending) out += std::string("descending: ") + (*config.descending ? "true" : "false") + "\n";
  if (config.tree) out += std::string("tree: ") + (*config.tree ? "true" : "false") + "\n";
  return out;
}

core::Result<TopConfig> load_config(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return TopConfig{};  // none yet: the defaults
  // A regular file of at most 1 MiB (core/bounded_read.hpp): a FIFO or a device is refused at once.
  auto text = core::read_regular_file(path, "top's config file", core::kMaxConfigFileBytes);
  if (!text) return text.error();
  return parse_config(*text, path);
}

core::Result<void> save_config(const std::string& path, const TopConfig& config) {
  if (path.empty()) return core::make_error("no config folder: set XDG_CONFIG_HOME or HOME");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return core::make_error(path + ": cannot create its folder: " + ec.message());
  // A fresh temporary file next to PATH, then a rename (core/safe_file.hpp): never PATH.tmp.
  return core::write_file_atomically(path, format_config(config));
}

}  // namespace gpuwatch::tui
