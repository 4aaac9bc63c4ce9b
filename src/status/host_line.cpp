#include "status/host_line.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "host_signals/host_fields.hpp"
#include "status/view.hpp"
#include "terminal/width.hpp"

namespace gpuwatch::status {
namespace {

using terminal::Color;

// The compact form (a terminal under 160 columns) writes "23%" and "12M" (bytes/s, as dstat does).
struct HostFormat {
  bool brief = false;
};

std::string whole_percent_text(double percent, HostFormat f = {}) {
  return f.brief ? fmt::format("{:.0f}%", percent) : fmt::format("{:.0f} %", percent);
}

std::string rate_text(double bytes_per_s, HostFormat f) {
  std::string text = byte_rate_text(bytes_per_s);  // "1.2 MB/s"
  if (!f.brief) return text;
  const auto space = text.find(' ');
  const std::string unit = text.substr(space + 1);
  return text.substr(0, space) + (unit == "B/s" ? "" : unit.substr(0, 1));  // "1.2M", "812"
}

// "a, b, c" of the parts present.
std::string host_parts_joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

std::string labelled_percent(std::string_view label, const std::optional<double>& v, HostFormat f = {}) {
  return v ? fmt::format("{} {}", label, whole_percent_text(*v, f)) : std::string();
}

std::string labelled_rate(std::string_view label, const std::optional<double>& v, HostFormat f) {
  return v ? fmt::format("{} {}", label, rate_text(*v, f)) : std::string();
}

Color load_color(const std::optional<double>& percent) {
  switch (host_cpu_severity(percent)) {
    case terminal::Severity::Critical: return Color::Red;
    case terminal::Severity::Warn: return Color::Yellow;
    case terminal::Severity::Ok: break;
  }
  return Color::Plain;
}

std::string cpu_part(const host_signals::HostSample& h, const terminal::Style& style, HostFormat f) {
  if (f.brief) {
    if (!h.cpu_busy_percent) return {};
    return host_parts_joined({"CPU " + style.paint(whole_percent_text(*h.cpu_busy_percent, f), load_color(h.cpu_busy_percent)),
                              labelled_percent("io", h.cpu_iowait_percent, f)},
                             " ");
  }
  const std::string details = host_parts_joined({labelled_percent("iowait", h.cpu_iowait_percent), labelled_percent("steal", h.cpu_steal_percent),
                                      labelled_percent("PSI", h.cpu_pressure_some_percent)},
                                     ", ");
  if (!h.cpu_busy_percent && details.empty()) return {};
  std::string out = "CPU " + (h.cpu_busy_percent ? style.paint(whole_percent_text(*h.cpu_busy_percent), load_color(h.cpu_busy_percent))
                                                  : std::string("N/A"));
  return details.empty() ? out : out + " (" + details + ")";
}

std::string memory_part(const host_signals::HostSample& h, HostFormat f) {
  if (f.brief) return h.memory_available_percent ? fmt::format("mem {} avail", whole_percent_text(*h.memory_available_percent, f)) : "";
  std::vector<std::string> parts;
  if (h.memory_available_percent) parts.push_back(fmt::format("{} avail", whole_percent_text(*h.memory_available_percent)));
  if (h.swap_in_pages_per_s || h.swap_out_pages_per_s) {
    parts.push_back(fmt::format("swap {:.0f} pg/s", h.swap_in_pages_per_s.value_or(0) + h.swap_out_pages_per_s.value_or(0)));
  }
  parts.push_back(labelled_percent("PSI", h.memory_pressure_some_percent));
  const std::string text = host_parts_joined(parts, ", ");
  return text.empty() ? text : "mem " + text;
}

std::string disk_part(const host_signals::HostSample& h, HostFormat f) {
  const std::string rates = host_parts_joined({labelled_rate("R", h.disk_read_bytes_per_s, f), labelled_rate("W", h.disk_write_bytes_per_s, f)}, " ");
  if (f.brief) return rates.empty() ? rates : "disk " + rates;
  const std::string text = host_parts_joined({rates, labelled_percent("busy", h.disk_busy_percent), labelled_percent("PSI", h.io_pressure_some_percent)}, ", ");
  return text.empty() ? text : "disk " + text;
}

std::string pair_part(std::string_view label, const std::optional<double>& rx, const std::optional<double>& tx, HostFormat f) {
  const std::string text = host_parts_joined({labelled_rate("RX", rx, f), labelled_rate("TX", tx, f)}, " ");
  return text.empty() ? text : fmt::format("{} {}", label, text);
}

nlohmann::ordered_json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

// Display width without the colour escapes (no copy: top fits its host line every frame).
std::size_t visible_width(std::string_view text) {
  std::size_t width = 0;
  while (!text.empty()) {
    const auto escape = text.find('\x1b');
    width += terminal::display_width(text.substr(0, escape));
    if (escape == std::string_view::npos) break;
    const auto end = text.find('m', escape);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return width;
}

}  // namespace

std::string byte_rate_text(double bytes_per_s) {
  static constexpr const char* kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  std::size_t unit = 0;
  double v = bytes_per_s < 0 ? 0 : bytes_per_s;
  while (v >= 999.5 && unit + 1 < std::size(kUnits)) v /= 1000, ++unit;
  if (unit == 0 || v >= 9.95) return fmt::format("{:.0f} {}", v, kUnits[unit]);
  return fmt::format("{:.1f} {}", v, kUnits[unit]);
}

terminal::Severity host_cpu_severity(const std::optional<double>& busy_percent) {
  if (!busy_percent) return terminal::Severity::Ok;
  return *busy_percent >= 90 ? terminal::Severity::Critical : *busy_percent >= 70 ? terminal::Severity::Warn : terminal::Severity::Ok;
}

std::vector<std::string> host_line_parts(const host_signals::HostSample& host, const terminal::Style& style, bool brief) {
  const HostFormat f{brief};
  std::vector<std::string> parts = {cpu_part(host, style, f), memory_part(host, f), disk_part(host, f),
                                    pair_part("net", host.net_rx_bytes_per_s, host.net_tx_bytes_per_s, f),
                                    pair_part("IB", host.ib_rx_bytes_per_s, host.ib_tx_bytes_per_s, f)};
  std::erase_if(parts, [](const std::string& part) { return part.empty(); });
  return parts;
}

std::size_t host_parts_that_fit(const std::vector<std::string>& parts, std::size_t label_columns, std::size_t columns) {
  std::size_t used = label_columns, fit = 0;
  for (const auto& part : parts) {
    const std::size_t width = visible_width(part) + (fit == 0 ? 0 : kHostPartSeparator.size());
    if (fit > 0 && used + width > columns) break;
    used += width;
    ++fit;
  }
  return fit;
}

std::string render_host_line(const host_signals::HostSample& host, const terminal::Style& style, std::size_t columns) {
  const bool brief = columns != 0 && columns < kWideColumns;
  std::vector<std::string> parts = host_line_parts(host, style, brief);
  // Narrow: the parts that do not fit go, from the right (IB first), never cut in the middle.
  if (brief) parts.resize(host_parts_that_fit(parts, 6, columns));
  const std::string label = style.paint("host", Color::Bold) + "  ";
  std::string line = host_parts_joined(parts, kHostPartSeparator);
  if (line.empty()) line = "N/A (no /proc/stat, /proc/meminfo or counters readable)";
  return label + line + "\n";
}

nlohmann::ordered_json host_json(const host_signals::HostSample& host) {
  nlohmann::ordered_json out;
  out["timestamp_s"] = std::chrono::duration<double>(host.timestamp.time_since_epoch()).count();
  for (const auto& field : host_signals::host_fields()) {
    const auto value = field.get(host);
    if (value && field.whole) out[std::string(field.key)] = static_cast<std::uint64_t>(*value);
    else out[std::string(field.key)] = optional_number(value);
  }
  nlohmann::ordered_json cores = nlohmann::ordered_json::array();
  for (const auto& core : host.cores) cores.push_back({{"cpu", core.cpu}, {"busy_percent", optional_number(core.busy_percent)}});
  out["cores"] = std::move(cores);
  nlohmann::ordered_json disks = nlohmann::ordered_json::array();
  for (const auto& d : host.disks) {
    disks.push_back({{"name", d.name}, {"read_bytes_per_s", optional_number(d.read_bytes_per_s)},
                     {"write_bytes_per_s", optional_number(d.write_bytes_per_s)}, {"busy_percent", optional_number(d.busy_percent)}});
  }
  out["disks"] = std::move(disks);
  nlohmann::ordered_json interfaces = nlohmann::ordered_json::array();
  for (const auto& i : host.interfaces) {
    interfaces.push_back({{"name", i.name}, {"rx_bytes_per_s", optional_number(i.rx_bytes_per_s)},
                          {"tx_bytes_per_s", optional_number(i.tx_bytes_per_s)}});
  }
  out["interfaces"] = std::move(interfaces);
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  for (const auto& p : host.ib_ports) {
    ports.push_back({{"device", p.device}, {"port", p.port}, {"rx_bytes_per_s", optional_number(p.rx_bytes_per_s)},
                     {"tx_bytes_per_s", optional_number(p.tx_bytes_per_s)}, {"rx_packets_per_s", optional_number(p.rx_packets_per_s)},
                     {"tx_packets_per_s", optional_number(p.tx_packets_per_s)}});
  }
  out["ib_ports"] = std::move(ports);
  return out;
}

}  // namespace gpuwatch::status
