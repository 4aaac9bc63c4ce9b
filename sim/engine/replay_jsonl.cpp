// `gpuwatch record --jsonl` / `history --format jsonl` logs as a recorded series: one
// object per GPU per sample, "time" (ISO-8601 with the zone) then the field table's
// JSON keys in base units (bytes, Hz, ratio, W, s...), null when absent. Values are
// turned back into the display units of the scenario vocabulary (MiB, MHz, %, ...).
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unordered_map>
#include <fmt/format.h>

#include "core/field_table.hpp"
#include "sim/engine/replay_source.hpp"
#include "sim/engine/value_limits.hpp"

namespace gpuwatch::sim {
namespace {

struct JsonColumn {
  Key key;
  double scale;  // base unit -> display unit
};

double display_scale(core::Display display) {
  switch (display) {
    case core::Display::MiB: return 1.0 / (1024.0 * 1024.0);
    case core::Display::MHz: return 1e-6;
    case core::Display::Percent:
    case core::Display::Percent2: return 100.0;
    case core::Display::Microseconds: return 1e6;
    case core::Display::Milliseconds: return 1e3;
    case core::Display::KBps: return 1.0 / 1024.0;
    default: return 1.0;
  }
}

// JSON key -> (scenario key, scale), for every field the simulator knows.
const std::unordered_map<std::string, JsonColumn>& json_columns() {
  static const auto* columns = [] {
    auto* m = new std::unordered_map<std::string, JsonColumn>();
    for (const auto& f : core::field_table()) {
      if (auto key = find_key(f.name)) (*m)[std::string(f.json_key)] = JsonColumn{*key, display_scale(f.display)};
    }
    return m;
  }();
  return *columns;
}

}  // namespace

core::Result<RecordedSeries> read_recorded_jsonl(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  RecordedSeries out;
  std::map<std::string, std::size_t> gpu_slot;
  double t0 = -1;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto doc = nlohmann::json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
      return core::make_error(fmt::format("recorded series line {}: not a JSON object", lineno));
    double ts = 0;
    auto time = doc.find("time");
    if (time == doc.end() || !time->is_string() || !parse_timestamp(time->get<std::string>(), ts))
      return core::make_error(fmt::format("recorded series line {}: no ISO-8601 \"time\"", lineno));
    if (t0 < 0) t0 = ts;
    std::string gpu_id = "0";
    for (const char* id : {"index", "uuid", "pci_bus_id"}) {
      auto it = doc.find(id);
      if (it != doc.end() && !it->is_null()) {
        gpu_id = it->dump();
        break;
      }
    }
    auto [slot, inserted] = gpu_slot.emplace(gpu_id, gpu_slot.size());
    if (slot->second >= out.per_gpu.size()) out.per_gpu.resize(slot->second + 1);
    ReplayRow row;
    row.t_s = std::round((ts - t0) * 1e6) / 1e6;
    for (const auto& [name, value] : doc.items()) {
      auto column = json_columns().find(name);
      if (column == json_columns().end() || column->first == "timestamp_s") continue;
      if (value.is_null()) {
        row.values.emplace_back(column->second.key, Value::make_error(3));  // absent: [N/A]
      } else if (value.is_number() && !value.is_boolean()) {
        double v = value.get<double>() * column->second.scale;
        // Integral display values (MiB, MHz, %) were integers when recorded: undo float noise.
        if (std::fabs(v - std::round(v)) < 1e-6) v = std::round(v);
        if (auto problem = value_range_problem(column->second.key, v); !problem.empty()) {
          return core::make_error(fmt::format("recorded series line {}: \"{}\": {} is {}", lineno, clip_for_message(name),
                                              clip_for_message(value.dump()), problem));
        }
        row.values.emplace_back(column->second.key, Value::make_number(v));
      }
    }
    out.per_gpu[slot->second].push_back(std::move(row));
  }
  if (out.per_gpu.empty()) return core::make_error("recorded series: no rows");
  return out;
}

}  // namespace gpuwatch::sim
