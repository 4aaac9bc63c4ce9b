#include "sim/engine/replay_source.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <fmt/format.h>

#include "core/bounded_read.hpp"
#include "sim/engine/value_limits.hpp"

namespace gpuwatch::sim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') { quoted = !quoted; continue; }
    if (c == ',' && !quoted) { out.emplace_back(trim(cur)); cur.clear(); continue; }
    cur += c;
  }
  out.emplace_back(trim(cur));
  return out;
}

bool parse_timestamp(std::string_view text, double& seconds) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, used = 0;
  double s = 0;
  std::string t(trim(text));
  if (std::sscanf(t.c_str(), "%d/%d/%d %d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &used) != 6 &&
      std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &used) != 6 &&
      std::sscanf(t.c_str(), "%d-%d-%d %d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s, &used) != 6)
    return false;
  // The zone of an ISO-8601 time (gpuwatch record writes "+01:00"); none: as written.
  std::string_view zone = std::string_view(t).substr(static_cast<std::size_t>(used));
  double offset_s = 0;
  if (!zone.empty() && zone != "Z") {
    int zh = 0, zm = 0, n = 0;
    std::string z(zone.substr(1));
    if ((zone[0] != '+' && zone[0] != '-') ||
        (std::sscanf(z.c_str(), "%2d:%2d%n", &zh, &zm, &n) != 2 && std::sscanf(z.c_str(), "%2d%2d%n", &zh, &zm, &n) != 2) ||
        static_cast<std::size_t>(n) != z.size())
      return false;
    offset_s = (zone[0] == '-' ? -1 : 1) * (zh * 3600.0 + zm * 60.0);
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  seconds = static_cast<double>(timegm(&tm)) + s - offset_s;
  return true;
}

core::Result<RecordedSeries> read_recorded_series(std::string_view csv_text) {
  if (auto first = csv_text.find_first_not_of(" \t\r\n"); first != std::string_view::npos && csv_text[first] == '{')
    return read_recorded_jsonl(csv_text);
  std::istringstream in{std::string(csv_text)};
  std::string line;
  if (!std::getline(in, line)) return core::make_error("recorded series: empty file");
  auto header = split_csv_line(line);
  bool trace = false;
  std::vector<std::optional<Key>> keys;
  int ts_col = -1, gpu_col = -1, uuid_col = -1, bus_col = -1;
  for (std::size_t i = 0; i < header.size(); ++i) {
    std::string name = header[i].substr(0, header[i].find(" ["));
    // "timestamp": nvidia-smi's logs and the traces; "time": gpuwatch record --csv / history --format csv.
    if (name == "timestamp" || name == "time") ts_col = static_cast<int>(i);
    if (name == "gpu_index" || name == "index") gpu_col = static_cast<int>(i);
    if (name == "uuid" || name == "gpu_uuid") uuid_col = static_cast<int>(i);
    if ((name == "pci.bus_id" || name == "gpu_bus_id") && uuid_col < 0) bus_col = static_cast<int>(i);
    if (name == "temperature_C") { trace = true; keys.push_back(Key::TemperatureGpu); continue; }
    if (name == "utilization_gpu_percent") { keys.push_back(Key::UtilizationGpu); continue; }
    if (name == "power_W") { keys.push_back(Key::PowerDraw); continue; }
    if (name == "timestamp" || name == "time" || name == "gpu_index") { keys.emplace_back(); continue; }
    keys.push_back(find_key(name));
  }
  if (ts_col < 0) return core::make_error("recorded series: no 'timestamp' (or 'time') column in the header");
  (void)trace;
  RecordedSeries out;
  std::map<std::string, std::size_t> gpu_slot;
  double t0 = -1;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (trim(line).empty()) continue;
    auto cells = split_csv_line(line);
    if (cells.size() != header.size())
      return core::make_error(fmt::format("recorded series line {}: {} cells, header has {}", lineno, cells.size(), header.size()));
    double ts = 0;
    if (!parse_timestamp(cells[static_cast<std::size_t>(ts_col)], ts))
      return core::make_error(fmt::format("recorded series line {}: bad timestamp '{}'", lineno, cells[static_cast<std::size_t>(ts_col)]));
    if (t0 < 0) t0 = ts;
    std::string gpu_id = gpu_col >= 0    ? cells[static_cast<std::size_t>(gpu_col)]
                         : uuid_col >= 0 ? cells[static_cast<std::size_t>(uuid_col)]
                         : bus_col >= 0  ? cells[static_cast<std::size_t>(bus_col)]
                                         : "0";
    auto [it, inserted] = gpu_slot.emplace(gpu_id, gpu_slot.size());
    if (it->second >= out.per_gpu.size()) out.per_gpu.resize(it->second + 1);
    ReplayRow row;
    row.t_s = std::round((ts - t0) * 1e6) / 1e6;  // epoch seconds in a double: ~1e-7 s of noise
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (!keys[i] || static_cast<int>(i) == ts_col) continue;
      Value value = parse_value(cells[i]);
      if (value.is_number()) {
        if (auto problem = value_range_problem(*keys[i], value.number); !problem.empty()) {
          return core::make_error(fmt::format("recorded series line {}: column '{}': '{}' is {}", lineno,
                                              clip_for_message(header[i]), clip_for_message(cells[i]), problem));
        }
      }
      row.values.emplace_back(*keys[i], std::move(value));
    }
    out.per_gpu[it->second].push_back(std::move(row));
  }
  if (out.per_gpu.empty()) return core::make_error("recorded series: no rows");
  return out;
}

core::Result<RecordedSeries> load_recorded_series(const std::string& path) {
  auto text = core::read_regular_file(path, "recorded series");  // regular files, 64 MiB at most (issue 16)
  if (!text) return text.error();
  auto r = read_recorded_series(*text);
  if (!r) return core::make_error(fmt::format("{}: {}", path, r.error().message));
  return r;
}

}  // namespace gpuwatch::sim
