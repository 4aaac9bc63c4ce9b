#include "status/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/sink_text.hpp"
#include "status/host_line.hpp"
#include "status/throttle.hpp"
#include "terminal/severity.hpp"
#include "terminal/units.hpp"
#include "terminal/width.hpp"

namespace gpuwatch::status {
namespace {

using core::FieldId;
using terminal::Color;
using terminal::Severity;

constexpr std::string_view kNa = "N/A";
constexpr std::size_t kMinCommandWidth = 20;
constexpr std::size_t kMinNameWidth = 4;

std::string number_or_na(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(kNa); }

// Pads TEXT to WIDTH (right-aligned unless LEFT), then colours it; N/A is grey.
std::string cell(const terminal::Style& style, const std::string& text, std::size_t width, Color color, bool left = false) {
  std::string padded = left ? fmt::format("{:<{}}", text, width) : fmt::format("{:>{}}", text, width);
  return style.paint(padded, text == kNa ? Color::Gray : color);
}

// bytes/s -> MiB/s, truncated (dmon's rxpci/txpci unit).
std::optional<std::int64_t> whole_mib_per_s(const core::FieldReading& reading) {
  auto v = reading.as_double();
  if (!v || *v < 0) return std::nullopt;
  return static_cast<std::int64_t>(*v / (1024.0 * 1024.0));
}

// One GPU's values as shown, in display units, with their severities.
struct Shown {
  std::string vendor;  // "amd" (issue 28); "" on a node of NVIDIA GPUs alone, which shows no vendor column
  std::string name;
  std::string temp, util, used, total, draw, limit, sm, sm_max, rx, tx;
  std::optional<std::int64_t> fan;  // absent: the board has no fan (nothing is shown)
  Severity temp_severity = Severity::Ok, memory_severity = Severity::Ok, power_severity = Severity::Ok;
  ThrottleMarker throttle;
};

Shown shown(const core::DeviceSnapshot& d, bool name_vendor) {
  Shown s;
  if (name_vendor) s.vendor = core::to_string(d.vendor);
  s.name = core::terminal_text(d.get(FieldId::Name).as_string().value_or(std::string(kNa)));  // a driver's bytes (issue 31)
  s.temp = number_or_na(terminal::whole_number(d.get(FieldId::TemperatureGpu)));
  s.util = number_or_na(terminal::whole_percent(d.get(FieldId::UtilizationGpu)));
  s.used = number_or_na(terminal::whole_mib(d.get(FieldId::MemoryUsed)));
  s.total = number_or_na(terminal::whole_mib(d.get(FieldId::MemoryTotal)));
  s.draw = number_or_na(terminal::whole_watts(d.get(FieldId::PowerDraw)));
  s.limit = number_or_na(terminal::whole_watts(d.get(FieldId::EnforcedPowerLimit)));
  s.sm = number_or_na(terminal::whole_mhz(d.get(FieldId::ClocksCurrentSm)));
  s.sm_max = number_or_na(terminal::whole_mhz(d.get(FieldId::ClocksMaxSm)));
  s.rx = number_or_na(whole_mib_per_s(d.get(FieldId::PcieRxThroughput)));
  s.tx = number_or_na(whole_mib_per_s(d.get(FieldId::PcieTxThroughput)));
  s.fan = terminal::whole_percent(d.get(FieldId::FanSpeed));
  s.temp_severity = terminal::temperature_severity(d.get(FieldId::TemperatureGpu).as_double(),
                                                   d.get(FieldId::TemperatureGpuSlowdown).as_double());
  s.memory_severity = terminal::memory_severity(d.get(FieldId::MemoryUsed).as_double(), d.get(FieldId::MemoryTotal).as_double());
  s.power_severity = terminal::power_severity(d.get(FieldId::PowerDraw).as_double(), d.get(FieldId::EnforcedPowerLimit).as_double());
  s.throttle = throttle_marker(d);
  return s;
}

// Column widths shared by every GPU line, so that the columns line up.
struct Widths {
  std::size_t vendor = 0;  // 0: no vendor column
  std::size_t name = 0, memory = 0, power = 0, pcie = 1;
  bool any_fan = false;
};

Widths measure(const std::vector<Shown>& all) {
  Widths w;
  for (const auto& s : all) {
    w.vendor = std::max(w.vendor, s.vendor.size());
    w.name = std::max(w.name, s.name.size());
    w.memory = std::max({w.memory, s.used.size(), s.total.size()});
    w.power = std::max({w.power, s.draw.size(), s.limit.size()});
    w.pcie = std::max({w.pcie, s.rx.size(), s.tx.size()});
    w.any_fan = w.any_fan || s.fan.has_value();
  }
  return w;
}

std::string header_line(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style) {
  const std::tm& t = context.local_time;
  std::string line = fmt::format("{}  {:04}-{:02}-{:02} {:02}:{:02}:{:02}  driver {}",
                                 style.paint(core::terminal_text(context.hostname), Color::Bold), t.tm_year + 1900, t.tm_mon + 1,
                                 t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                                 core::terminal_text(snapshot.driver_version.value_or("N/A")));
  if (snapshot.cuda_driver_version) {
    line += fmt::format("  CUDA {}.{}", *snapshot.cuda_driver_version / 1000, (*snapshot.cuda_driver_version % 1000) / 10);
  }
  if (context.simulated_scenario) {
    line += "  " + style.paint(fmt::format("[simulated: {}]", core::terminal_text(*context.simulated_scenario)), Color::BoldYellow);
  }
  return line + "\n";
}

std::string index_cell(unsigned index, const terminal::Style& style) {
  return style.paint(fmt::format("[{}]", index), Color::Cyan);
}

// "[4] amd    " on a node that names vendors: the index, then the vendor in its own column (the
// names do not all say it: "AMD GPU [1002:74a1]" does, the compact form drops "NVIDIA "); "[4] " else.
std::string index_and_vendor(unsigned index, const Shown& s, const Widths& w, const terminal::Style& style) {
  std::string out = index_cell(index, style) + " ";
  if (w.vendor != 0) out += style.paint(fmt::format("{:<{}}", s.vendor, w.vendor), Color::Gray) + " ";
  return out;
}

// The SM clock is coloured like the throttle marker: a held-down clock is the symptom.
Color clock_color(const Shown& s) { return terminal::severity_color(s.throttle.severity); }

std::string wide_device_line(unsigned index, const Shown& s, const Widths& w, const terminal::Style& style) {
  std::string line = index_and_vendor(index, s, w, style) + cell(style, s.name, w.name, Color::Blue, true);
  line += " | " + cell(style, s.temp, 3, terminal::severity_color(s.temp_severity)) + "°C";
  line += ", " + cell(style, s.util, 3, Color::Plain) + " %";
  line += " | " + cell(style, s.used, w.memory, terminal::severity_color(s.memory_severity));
  line += " / " + cell(style, s.total, w.memory, Color::Plain) + " MiB";
  line += " | " + cell(style, s.draw, w.power, terminal::severity_color(s.power_severity));
  line += " / " + cell(style, s.limit, w.power, Color::Plain) + " W";
  line += " | SM " + cell(style, s.sm, 4, clock_color(s)) + " / " + cell(style, s.sm_max, 4, Color::Plain) + " MHz";
  line += " | PCIe RX " + cell(style, s.rx, w.pcie, Color::Plain) + " TX " + cell(style, s.tx, w.pcie, Color::Plain) + " MB/s";
  const bool marker = !s.throttle.labels.empty();
  if (s.fan) {
    line += " | fan " + cell(style, std::to_string(*s.fan), 3, Color::Plain) + " %";
  } else if (w.any_fan && marker) {
    line += std::string(std::string_view(" | fan 100 %").size(), ' ');  // keeps the marker in its column
  }
  if (marker) {
    line += " | " + style.paint("▼ throttled: " + s.throttle.joined(", "), terminal::severity_color(s.throttle.severity));
  }
  return line + "\n";
}

// Compact line 1 with the name cut to NAME_WIDTH columns.
std::string compact_device_line(unsigned index, const Shown& s, const Widths& w, std::size_t name_width,
                                const terminal::Style& style) {
  std::string line =
      index_and_vendor(index, s, w, style) + cell(style, terminal::fit(s.name, name_width), name_width, Color::Blue, true);
  line += "  " + cell(style, s.temp, 3, terminal::severity_color(s.temp_severity)) + "°C";
  line += " " + cell(style, s.util, 3, Color::Plain) + "%";
  line += "  " + cell(style, s.used, w.memory, terminal::severity_color(s.memory_severity)) + "/" +
          cell(style, s.total, w.memory, Color::Plain, true) + "MiB";
  line += "  " + cell(style, s.draw, w.power, terminal::severity_color(s.power_severity)) + "/" +
          cell(style, s.limit, w.power, Color::Plain, true) + "W";
  line += "  " + cell(style, s.sm, 4, clock_color(s)) + "/" + cell(style, s.sm_max, 4, Color::Plain, true) + "MHz";
  if (s.fan) {
    line += "  fan " + cell(style, std::to_string(*s.fan), 3, Color::Plain) + "%";
  } else if (w.any_fan && !s.throttle.labels.empty()) {
    line += std::string(std::string_view("  fan 100%").size(), ' ');
  }
  if (!s.throttle.labels.empty()) {
    line += " " + style.paint("▼" + s.throttle.joined(","), terminal::severity_color(s.throttle.severity));
  }
  return line + "\n";
}

std::string error_line(const core::DeviceSnapshot& device, const core::Snapshot& snapshot, const terminal::Style& style) {
  const bool nvidia = device.vendor == core::Vendor::Nvidia;  // Xids and NVML are NVIDIA's words
  std::string what = device.state == core::DeviceState::Lost
                         ? std::string(nvidia ? "GPU is lost (fallen off the bus? check dmesg for Xid 79)"
                                              : "GPU is lost (fallen off the bus? check dmesg)")
                     : device.state == core::DeviceState::TimedOut
                         ? std::string(nvidia ? "timed out: an NVML call to this GPU did not answer in time (--timeout)"
                                              : "timed out: a read of this GPU did not answer in time (--timeout)")
                         : "GPU is inaccessible: " + core::terminal_text(snapshot.error_string(device.error));
  return index_cell(device.index, style) + " " + style.paint("ERROR: " + what, Color::BoldRed) + "\n";
}

const host::ProcessInfo* info_of(const core::ProcessSample& process, const StatusContext& context) {
  auto found = context.processes.find(process.pid);
  return found == context.processes.end() ? nullptr : &found->second;
}

// "[pod ml/trainer-0] ", "[job 77.0] ", "[docker trainer] ": who the process belongs to (issue 15);
// "" when nothing is known, so that a plain host shows what it always showed.
std::string owner_tag(const core::ProcessSample& process, const StatusContext& context) {
  auto found = context.owners.find(process.pid);
  if (found == context.owners.end() || found->second.empty()) return "";
  return "[" + core::terminal_text(found->second.summary()) + "] ";
}

// The command line as a terminal may show it: a local user chose its bytes (issue 31).
std::string command_of(const core::ProcessSample& process, const host::ProcessInfo* info) {
  return core::terminal_text(info && info->command_line ? *info->command_line
                             : !process.name.empty()    ? process.name
                                                        : std::string(kNa));
}

std::string user_of(const host::ProcessInfo* info) {
  return info && info->user ? core::terminal_text(*info->user) : std::string(kNa);
}

// "processes: N/A (why)" when the list could not be read; "" when it could.
std::string unreadable_processes(const core::DeviceSnapshot& device, const core::Snapshot& snapshot) {
  if (device.processes_status == core::FieldStatus::Ok || device.processes_status == core::FieldStatus::NotRead) return "";
  std::string why = device.processes_status == core::FieldStatus::Failed ? snapshot.error_string(device.processes_error)
                                                                          : core::to_string(device.processes_status);
  return fmt::format("processes: N/A ({})", core::terminal_text(why));
}

std::string wide_process_line(const core::ProcessSample& process, const StatusContext& context, const terminal::Style& style) {
  const host::ProcessInfo* info = info_of(process, context);
  std::string user = user_of(info);
  std::string memory = number_or_na(terminal::whole_mib(process.used_memory_bytes));
  std::string gpu = number_or_na(terminal::whole_percent(process.sm_ratio));
  std::string cpu = number_or_na(terminal::whole_percent(info ? info->cpu_ratio : std::nullopt));
  std::string rss = number_or_na(terminal::whole_mib(info ? info->rss_bytes : std::nullopt));
  std::string mig;  // plain text; coloured below
  if (process.gpu_instance_id) {
    mig = fmt::format("[MIG GI {} CI {}] ", *process.gpu_instance_id,
                      process.compute_instance_id ? std::to_string(*process.compute_instance_id) : "N/A");
  }
  const std::string owner = owner_tag(process, context);
  auto prefix = [&](const terminal::Style& st) {
    return fmt::format("    {} {:>7} {} {} MiB  GPU {} %  CPU {} %  RSS {} MiB  ", st.paint("└", Color::Gray), process.pid,
                       cell(st, user, 10, Color::Gray, true), cell(st, memory, 6, Color::Plain), cell(st, gpu, 3, Color::Plain),
                       cell(st, cpu, 3, Color::Plain), cell(st, rss, 6, Color::Plain));
  };
  std::string line = prefix(style);
  std::size_t width = 0;  // 0: never cut
  if (context.columns != 0) {
    std::size_t used = terminal::display_width(prefix(terminal::Style(false))) + mig.size() + owner.size();
    width = std::max(kMinCommandWidth, context.columns - std::min(context.columns, used));
  }
  return line + (mig.empty() ? mig : style.paint(mig, Color::Cyan)) + (owner.empty() ? owner : style.paint(owner, Color::Cyan)) +
         terminal::fit(command_of(process, info), width) + "\n";
}

// Compact line 2: PCIe throughput, then the processes in one line.
std::string compact_second_line(const core::DeviceSnapshot& device, const Shown& s, const Widths& w,
                                const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style) {
  std::string line = "    PCIe RX " + cell(style, s.rx, w.pcie, Color::Plain) + " TX " + cell(style, s.tx, w.pcie, Color::Plain) +
                     " MB/s  " + style.paint("└", Color::Gray) + " ";
  const std::size_t prefix = 4 + 8 + w.pcie + 4 + w.pcie + 7 + 2;
  const std::size_t room = std::max(kMinCommandWidth, context.columns - std::min(context.columns, prefix));
  if (std::string why = unreadable_processes(device, snapshot); !why.empty()) {
    return line + style.paint(terminal::fit(why, room), Color::Gray) + "\n";
  }
  if (device.processes.empty()) return line + style.paint("no processes", Color::Gray) + "\n";
  std::string summary;
  if (device.processes.size() == 1) {
    const auto& p = device.processes.front();
    const host::ProcessInfo* info = info_of(p, context);
    summary = fmt::format("{} {} {}MiB {}% {}{}", p.pid, user_of(info),
                          number_or_na(terminal::whole_mib(p.used_memory_bytes)),
                          number_or_na(terminal::whole_percent(p.sm_ratio)), owner_tag(p, context), command_of(p, info));
  } else {
    std::uint64_t total = 0;
    for (const auto& p : device.processes) total += p.used_memory_bytes.value_or(0);
    summary = fmt::format("{} procs {}MiB:", device.processes.size(), total / (1024 * 1024));
    for (std::size_t i = 0; i < device.processes.size(); ++i) {
      const auto& p = device.processes[i];
      summary += fmt::format("{} {} {}{}", i == 0 ? "" : ",", p.pid, owner_tag(p, context), command_of(p, info_of(p, context)));
    }
  }
  return line + terminal::fit(summary, room) + "\n";
}

// One line per active finding that involves GPU, worst first, coloured by severity (issue 10).
std::string finding_lines(unsigned gpu, const StatusContext& context, const terminal::Style& style) {
  std::vector<const diagnose::Finding*> mine;
  for (const auto& f : context.findings) {
    // A finding of several GPUs (imbalance) is shown once, under the first of them.
    if (!f.gpus.empty() && f.gpus.front() == gpu) mine.push_back(&f);
  }
  std::stable_sort(mine.begin(), mine.end(), [](auto* a, auto* b) { return a->severity > b->severity; });
  std::string out;
  for (const auto* f : mine) {
    const Color color = f->severity == diagnose::Severity::Critical  ? Color::BoldRed
                        : f->severity == diagnose::Severity::Warning ? Color::BoldYellow
                                                                     : Color::Cyan;
    const char* mark = f->severity == diagnose::Severity::Info ? "i" : "!";
    std::string gpus;
    if (f->gpus.size() > 1) gpus = fmt::format("GPUs {}: ", fmt::join(f->gpus, ","));
    std::string text = core::terminal_text(
        fmt::format("{} {}{}", diagnose::to_string(f->severity), gpus, f->summary.empty() ? f->kind : f->summary));
    if (context.columns > 6) text = terminal::fit(text, context.columns - 6);
    out += "    " + style.paint(fmt::format("{} {}", mark, text), color) + "\n";
  }
  return out;
}

std::string render_wide(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style,
                        const std::vector<Shown>& all, const Widths& widths) {
  std::string out;
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i) {
    const auto& device = snapshot.devices[i];
    if (device.state != core::DeviceState::Ok) {
      out += error_line(device, snapshot, style) + finding_lines(device.index, context, style);
      continue;
    }
    out += wide_device_line(device.index, all[i], widths, style);
    out += finding_lines(device.index, context, style);
    if (std::string why = unreadable_processes(device, snapshot); !why.empty()) {
      out += "    " + style.paint(why, Color::Gray) + "\n";
      continue;
    }
    for (const auto& process : device.processes) out += wide_process_line(process, context, style);
  }
  return out;
}

std::string render_compact(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style,
                           std::vector<Shown> all, const Widths& widths) {
  // "NVIDIA " says nothing on a node of NVIDIA GPUs: the compact form drops it, then cuts the
  // name to what the widest line leaves.
  std::size_t longest_name = 0;
  for (auto& s : all) {
    if (s.name.rfind("NVIDIA ", 0) == 0) s.name = s.name.substr(7);
    longest_name = std::max(longest_name, s.name.size());
  }
  std::size_t rest = 0;
  const terminal::Style plain(false);
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i) {
    if (snapshot.devices[i].state != core::DeviceState::Ok) continue;
    Shown nameless = all[i];
    nameless.name.clear();
    rest = std::max(rest, terminal::display_width(compact_device_line(snapshot.devices[i].index, nameless, widths, 0, plain)) - 1);
  }
  const std::size_t room = context.columns > rest ? context.columns - rest : 0;
  const std::size_t name_width = std::max(kMinNameWidth, std::min(longest_name, room));
  std::string out;
  for (std::size_t i = 0; i < snapshot.devices.size(); ++i) {
    const auto& device = snapshot.devices[i];
    if (device.state != core::DeviceState::Ok) {
      out += error_line(device, snapshot, style) + finding_lines(device.index, context, style);
      continue;
    }
    out += compact_device_line(device.index, all[i], widths, name_width, style);
    out += compact_second_line(device, all[i], widths, snapshot, context, style);
    out += finding_lines(device.index, context, style);
  }
  return out;
}

}  // namespace

std::string render_status_text(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style) {
  std::vector<Shown> all;
  all.reserve(snapshot.devices.size());
  const bool name_vendors = snapshot.names_vendors();
  for (const auto& device : snapshot.devices) all.push_back(shown(device, name_vendors));
  const Widths widths = measure(all);
  std::string out = header_line(snapshot, context, style);
  if (context.host) out += render_host_line(*context.host, style, context.columns);  // issue 25
  const bool wide = context.columns == 0 || context.columns >= kWideColumns;
  return out + (wide ? render_wide(snapshot, context, style, all, widths)
                     : render_compact(snapshot, context, style, std::move(all), widths));
}

}  // namespace gpuwatch::status
