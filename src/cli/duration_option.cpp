#include "cli/duration_option.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cctype>
#include <cstdlib>

#include "core/time_spec.hpp"

namespace gpuwatch::cli {
namespace {

// "-i,--interval" -> "-i/--interval"
std::string shown_names(std::string names) {
  for (char& c : names) {
    if (c == ',') c = '/';
  }
  return names;
}

// Whether strtod reads all of TEXT (nan, inf, 1e308, -5): a number, whatever its range.
bool reads_as_a_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return false;
  char* end = nullptr;
  (void)std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0' && end != text.c_str();
}

}  // namespace

std::string format_duration(std::chrono::milliseconds duration) {
  using std::chrono::milliseconds;
  const auto ms = duration.count();
  if (ms % 3'600'000 == 0) return fmt::format("{}h", ms / 3'600'000);
  if (ms % 60'000 == 0) return fmt::format("{}m", ms / 60'000);
  if (ms % 1'000 == 0) return fmt::format("{}s", ms / 1'000);
  return fmt::format("{}ms", ms);
}

core::Result<std::chrono::milliseconds> read_duration_flag(const std::string& names_shown, const std::string& text,
                                                           const DurationBounds& bounds) {
  const std::string hint = bounds.hint.empty() ? "" : " (" + bounds.hint + ")";
  auto duration = core::parse_duration(text);
  // A number out of this flag's range, or none the grammar takes although it reads as one
  // (0, -5, 1e308, 1e400, nan, inf: issue 16): the message gives the flag's range.
  const bool in_range = duration && *duration >= bounds.min && *duration <= bounds.max;
  if (!in_range && (duration || reads_as_a_number(text))) {
    const std::string shown = text.size() <= 40 ? text : text.substr(0, 40) + "…";
    return core::make_error(fmt::format("{}: {} is out of range: give {} to {}{}", names_shown, shown,
                                        format_duration(bounds.min), format_duration(bounds.max), hint));
  }
  if (!duration) return core::make_error(fmt::format("{}: {}{}", names_shown, duration.error().message, hint));
  return *duration;
}

CLI::Option* add_duration_option(CLI::App& app, const std::string& names, std::chrono::milliseconds& target,
                                 const std::string& help, DurationBounds bounds) {
  const std::string shown = shown_names(names);
  auto* option = app.add_option_function<std::string>(
      names,
      [&target, shown, bounds](const std::string& text) {
        auto duration = read_duration_flag(shown, text, bounds);
        if (!duration) throw CLI::ValidationError(duration.error().message, CLI::ExitCodes::ValidationError);
        target = *duration;
      },
      help);
  option->type_name("DURATION");
  return option;
}

}  // namespace gpuwatch::cli

namespace gpuwatch::cli {

std::string gpu_id_hint(const std::string& text, const std::string& interval_flag) {
  if (!core::parse_duration(text)) return "";
  return fmt::format(" (-i is the GPU here, as in nvidia-smi; the interval is {})", interval_flag);
}

}  // namespace gpuwatch::cli
