#include "status/text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "terminal/units.hpp"

namespace gpuwatch::status {
namespace {

using core::FieldId;

constexpr std::string_view kNa = "N/A";
constexpr std::size_t kMinCommandWidth = 20;

std::string number_or_na(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(kNa); }

// Pads TEXT to WIDTH (right-aligned unless LEFT), then colours it; N/A is grey.
std::string cell(const terminal::Style& style, const std::string& text, std::size_t width, terminal::Color color, bool left = false) {
  std::string padded = left ? fmt::format("{:<{}}", text, width) : fmt::format("{:>{}}", text, width);
  return style.paint(padded, text == kNa ? terminal::Color::Gray : color);
}

std::string header_line(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style) {
  const std::tm& t = context.local_time;
  std::string line = fmt::format("{}  {:04}-{:02}-{:02} {:02}:{:02}:{:02}  driver {}",
                                 style.paint(context.hostname, terminal::Color::Bold), t.tm_year + 1900, t.tm_mon + 1,
                                 t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, snapshot.driver_version.value_or("N/A"));
  if (snapshot.cuda_driver_version) {
    line += fmt::format("  CUDA {}.{}", *snapshot.cuda_driver_version / 1000, (*snapshot.cuda_driver_version % 1000) / 10);
  }
  if (context.simulated_scenario) {
    line += "  " + style.paint(fmt::format("[simulated: {}]", *context.simulated_scenario), terminal::Color::BoldYellow);
  }
  return line + "\n";
}

struct Widths {
  std::size_t name = 0, memory = 0, power = 0;
};

Widths measure(const core::Snapshot& snapshot) {
  Widths w;
  for (const auto& device : snapshot.devices) {
    w.name = std::max(w.name, device.get(FieldId::Name).as_string().value_or(std::string(kNa)).size());
    w.memory = std::max(w.memory, number_or_na(terminal::whole_mib(device.get(FieldId::MemoryTotal))).size());
    w.memory = std::max(w.memory, number_or_na(terminal::whole_mib(device.get(FieldId::MemoryUsed))).size());
    w.power = std::max(w.power, number_or_na(terminal::whole_watts(device.get(FieldId::EnforcedPowerLimit))).size());
    w.power = std::max(w.power, number_or_na(terminal::whole_watts(device.get(FieldId::PowerDraw))).size());
  }
  return w;
}

std::string device_line(const core::DeviceSnapshot& device, const Widths& w, const terminal::Style& style) {
  std::string line = style.paint(fmt::format("[{}]", device.index), terminal::Color::Cyan) + " ";
  line += cell(style, device.get(FieldId::Name).as_string().value_or(std::string(kNa)), w.name, terminal::Color::Blue, true);

  auto temp = terminal::whole_number(device.get(FieldId::TemperatureGpu));
  line += " | " + cell(style, number_or_na(temp), 3, temp && *temp >= 50 ? terminal::Color::BoldRed : terminal::Color::Red) + "°C";

  auto util = terminal::whole_percent(device.get(FieldId::UtilizationGpu));
  line += ", " + cell(style, number_or_na(util), 3, util && *util >= 30 ? terminal::Color::BoldGreen : terminal::Color::Green) + " %";

  line += " | " + cell(style, number_or_na(terminal::whole_mib(device.get(FieldId::MemoryUsed))), w.memory, terminal::Color::BoldYellow);
  line += " / " + cell(style, number_or_na(terminal::whole_mib(device.get(FieldId::MemoryTotal))), w.memory, terminal::Color::Yellow) +
          " MiB";

  auto draw = device.get(FieldId::PowerDraw).as_double();
  auto limit = device.get(FieldId::EnforcedPowerLimit).as_double();
  bool high = draw && limit && *limit > 0 && *draw / *limit >= 0.4;
  line += " | " + cell(style, number_or_na(terminal::whole_watts(device.get(FieldId::PowerDraw))), w.power,
                       high ? terminal::Color::BoldMagenta : terminal::Color::Magenta);
  line += " / " + cell(style, number_or_na(terminal::whole_watts(device.get(FieldId::EnforcedPowerLimit))), w.power,
                       terminal::Color::Magenta) + " W";
  return line + "\n";
}

std::string error_line(const core::DeviceSnapshot& device, const core::Snapshot& snapshot, const terminal::Style& style) {
  std::string what = device.state == core::DeviceState::Lost
                         ? std::string("GPU is lost (fallen off the bus? check dmesg for Xid 79)")
                         : "GPU is inaccessible: " + snapshot.error_string(device.nvml_code);
  return style.paint(fmt::format("[{}]", device.index), terminal::Color::Cyan) + " " +
         style.paint("ERROR: " + what, terminal::Color::BoldRed) + "\n";
}

std::string shorten(const std::string& text, std::size_t width) {
  if (width == 0 || text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

std::string process_line(const core::ProcessSample& process, const StatusContext& context, const terminal::Style& style) {
  auto found = context.processes.find(process.pid);
  const host::ProcessInfo* info = found == context.processes.end() ? nullptr : &found->second;
  std::string user = info && info->user ? *info->user : std::string(kNa);
  std::string command = info && info->command_line ? *info->command_line
                        : !process.name.empty()    ? process.name
                                                   : std::string(kNa);
  std::string memory = number_or_na(terminal::whole_mib(process.used_memory_bytes));
  std::string mig;  // plain text; coloured below
  if (process.gpu_instance_id) {
    mig = fmt::format("[MIG GI {} CI {}] ", *process.gpu_instance_id,
                      process.compute_instance_id ? std::to_string(*process.compute_instance_id) : "N/A");
  }
  // Display width of what precedes the command: "    └ " pid " " user " " memory " MiB  " mig.
  std::size_t used = 6 + std::max<std::size_t>(7, std::to_string(process.pid).size()) + 1 +
                     std::max<std::size_t>(10, user.size()) + 1 + std::max<std::size_t>(6, memory.size()) + 6 +
                     mig.size();
  std::size_t width =
      context.columns == 0 ? 0 : std::max(kMinCommandWidth, context.columns - std::min(context.columns, used));
  return fmt::format("    {} {:>7} {} {} MiB  {}{}\n", style.paint("└", terminal::Color::Gray), process.pid,
                     cell(style, user, 10, terminal::Color::Gray, true), cell(style, memory, 6, terminal::Color::Yellow),
                     mig.empty() ? mig : style.paint(mig, terminal::Color::Cyan), style.paint(shorten(command, width), terminal::Color::Plain));
}

std::string process_lines(const core::DeviceSnapshot& device, const core::Snapshot& snapshot,
                          const StatusContext& context, const terminal::Style& style) {
  if (device.processes_status != core::FieldStatus::Ok && device.processes_status != core::FieldStatus::NotRead) {
    std::string why = device.processes_status == core::FieldStatus::Failed
                          ? snapshot.error_string(device.processes_nvml_code)
                          : core::to_string(device.processes_status);
    return "    " + style.paint(fmt::format("processes: N/A ({})", why), terminal::Color::Gray) + "\n";
  }
  std::string out;
  for (const auto& process : device.processes) out += process_line(process, context, style);
  return out;
}

}  // namespace

std::string render_status_text(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style) {
  std::string out = header_line(snapshot, context, style);
  Widths widths = measure(snapshot);
  for (const auto& device : snapshot.devices) {
    if (device.state != core::DeviceState::Ok) {
      out += error_line(device, snapshot, style);
      continue;
    }
    out += device_line(device, widths, style);
    out += process_lines(device, snapshot, context, style);
  }
  return out;
}

}  // namespace gpuwatch::status
