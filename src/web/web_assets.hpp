#pragma once
// Web assets built into the binary (see src/web/CMakeLists.txt): uPlot (installed from npm,
// never committed) and our own scripts in src/web/assets/. Used to make pages that load
// nothing from the network: `gpuwatch report -o` now, the `serve` dashboard later.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/embedded_file.hpp"

namespace gpuwatch::web {

// Asset names (file names, extension included).
inline constexpr std::string_view kUplotScript = "uPlot.iife.min.js";  // defines the global `uPlot`
inline constexpr std::string_view kUplotStyle = "uPlot.min.css";
inline constexpr std::string_view kUplotLicense = "uPlot.LICENSE.txt";
inline constexpr std::string_view kReportChartsScript = "report_charts.js";
inline constexpr std::string_view kReportStyle = "report.css";

// Every embedded file, by file name (generated at build time).
const std::vector<core::EmbeddedFile>& embedded_assets();

// The embedded file NAME, or nullopt.
std::optional<std::string_view> find_asset(std::string_view name);

// The embedded file NAME, which the build guarantees (the k* names above); a unit test
// checks each. Empty if absent, never a crash.
std::string_view asset(std::string_view name);

// The uPlot version built in, from node_modules/uplot/package.json ("1.6.32").
std::string_view uplot_version();

// <script>CODE</script> / <style>CSS</style> to inline in a page: a "</script" or
// "</style" inside (any case) is written as "<\/..." so it cannot end the element early.
std::string inline_script(std::string_view code);
std::string inline_style(std::string_view css);

// JSON text made safe inside a <script type="application/json"> element: every '<'
// becomes \u003c (valid JSON, parses to the same value).
std::string script_safe_json(std::string_view json);

}  // namespace gpuwatch::web
