#include "cli/duration_option.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

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
  if (!duration) return core::make_error(fmt::format("{}: {}{}", names_shown, duration.error().message, hint));
  if (*duration < bounds.min || *duration > bounds.max) {
    return core::make_error(fmt::format("{}: {} is out of range: give {} to {}{}", names_shown, text,
                                        format_duration(bounds.min), format_duration(bounds.max), hint));
  }
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
