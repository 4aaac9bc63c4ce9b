#include "pmon/format.hpp"

#include <fmt/core.h>

#include "core/sink_text.hpp"

namespace gpuwatch::pmon {
namespace {

constexpr std::size_t kCommandWidth = 15;  // nvidia-smi shows the first 15 characters

std::string cell(const std::optional<std::int64_t>& value) {
  return value ? fmt::format("{:>6} ", *value) : std::string("     - ");
}

}  // namespace

core::Result<void> parse_pmon_select(std::string_view letters, PmonOptions& options) {
  if (letters.empty()) return core::make_error("-s needs u and/or m");
  options.utilization = false;
  options.memory = false;
  for (char c : letters) {
    if (c == 'u') {
      options.utilization = true;
    } else if (c == 'm') {
      options.memory = true;
    } else {
      return core::make_error(fmt::format("-s: unknown metric group '{}' (use u and/or m)", c));
    }
  }
  return {};
}

std::string pmon_header(const PmonOptions& options) {
  std::string names = "# gpu         pid   type ";
  std::string units = "# Idx           #    C/G ";
  auto add = [&](std::string_view name, std::string_view unit) {
    names += fmt::format("{:>6} ", name);
    units += fmt::format("{:>6} ", unit);
  };
  if (options.utilization) {
    for (std::string_view name : {"sm", "mem", "enc", "dec", "jpg", "ofa"}) add(name, "%");
  }
  if (options.memory) {
    add("fb", "MB");
    add("ccpm", "MB");
  }
  names += "   command ";
  units += "   name ";
  if (options.owner) {  // after the command, so that nvidia-smi's columns stay where they are
    names += fmt::format("{:<{}}owner", "", kCommandWidth - 7);
    units += fmt::format("{:<{}}pod/job", "", kCommandWidth - 4);
  }
  names += "\n";
  units += "\n";
  return names + units;
}

std::string pmon_row(const PmonOptions& options, const PmonRow& row) {
  std::string out = fmt::format("{:>5} ", row.gpu);
  if (row.pid) {
    out += fmt::format("{:>10} {:>5} ", *row.pid, core::to_string(row.type));
  } else {
    out += fmt::format("{:>10} {:>5} ", "-", "-");
  }
  if (options.utilization) {
    for (const auto* v : {&row.sm_pct, &row.mem_pct, &row.enc_pct, &row.dec_pct, &row.jpg_pct, &row.ofa_pct}) {
      out += cell(row.pid ? *v : std::nullopt);
    }
  }
  if (options.memory) {
    out += cell(row.pid ? row.fb_mb : std::nullopt);
    out += cell(row.pid ? row.ccpm_mb : std::nullopt);
  }
  std::string command = row.pid ? row.command.substr(0, kCommandWidth) : std::string("-");
  if (command.empty()) command = "-";
  // Cut, then shown as a terminal may show it: a local user chose these bytes (issue 31).
  out += fmt::format("   {:<{}}", core::terminal_text(command), kCommandWidth);
  if (options.owner) out += "   " + (row.pid && row.owner ? core::terminal_text(*row.owner) : std::string("-"));
  out += "\n";
  return out;
}

}  // namespace gpuwatch::pmon
