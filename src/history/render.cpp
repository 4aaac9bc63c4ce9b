#include "history/render.hpp"
#include "core/json_text.hpp"

#include "core/sink_text.hpp"
#include "terminal/text_table.hpp"

#include <algorithm>
#include <fmt/core.h>
#include <utility>

#include "terminal/csv_render.hpp"
#include "query/json.hpp"
#include "core/time_spec.hpp"
#include "core/field_format.hpp"
#include "core/field_table.hpp"
#include "store/history_columns.hpp"
#include "store/process_commands.hpp"

namespace gpuwatch::history {
namespace {

using core::FieldId;

bool is_identity(FieldId id) {
  return id == FieldId::Index || id == FieldId::Uuid || id == FieldId::Name || id == FieldId::Serial ||
         id == FieldId::PciBusId || id == FieldId::Vendor;  // vendor: gpus.vendor (schema 15)
}

std::vector<FieldId> default_fields(HistoryFormat format) {
  if (format == HistoryFormat::Table) {
    return {FieldId::Index,          FieldId::UtilizationGpu, FieldId::UtilizationMemory, FieldId::MemoryUsed,
            FieldId::MemoryTotal,    FieldId::TemperatureGpu, FieldId::PowerDraw,         FieldId::ClocksCurrentSm,
            FieldId::Pstate};
  }
  std::vector<FieldId> fields = {FieldId::Index, FieldId::Uuid, FieldId::Name};
  for (const auto& column : store::history_columns()) fields.push_back(column.field);
  return fields;
}


std::string time_text(std::int64_t ms) {
  return core::format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)));
}

std::string duration_text(std::int64_t ms) {
  std::int64_t s = ms / 1000;
  if (s >= 3600) return fmt::format("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

core::Result<HistoryFormat> parse_history_format(const std::string& text) {
  if (text == "table") return HistoryFormat::Table;
  if (text == "csv") return HistoryFormat::Csv;
  if (text == "jsonl") return HistoryFormat::Jsonl;
  return core::make_error("--format must be table, csv or jsonl (not '" + text + "')");
}

core::Result<std::vector<FieldId>> parse_history_fields(const std::string& text, HistoryFormat format) {
  if (text.empty()) return default_fields(format);
  std::vector<FieldId> fields;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) {
      auto id = core::find_field(name);
      if (!id) return core::make_error("unknown field '" + name + "' (names as `gpuwatch query --help-query-gpu`)");
      if (!is_identity(*id) && store::find_history_column(*id) == nullptr) {
        std::string recorded;
        for (const auto& column : store::history_columns()) {
          recorded += std::string(recorded.empty() ? "" : ", ") + std::string(core::field_info(column.field).name);
        }
        return core::make_error("the field '" + name + "' is not recorded; recorded fields: index, uuid, name, serial, "
                                "pci.bus_id, vendor, " + recorded);
      }
      fields.push_back(*id);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (fields.empty()) return core::make_error("--fields lists no field");
  return fields;
}

std::string history_csv_header(const std::vector<FieldId>& fields) { return "time, " + terminal::gpu_csv_header(fields); }

std::string history_rows(const core::Snapshot& snapshot, const std::vector<FieldId>& fields, HistoryFormat format) {
  std::string out;
  const std::string time = core::format_iso8601(snapshot.timestamp);
  if (format == HistoryFormat::Jsonl) {
    for (auto& row : query::gpu_json_rows(snapshot, fields)) {
      nlohmann::ordered_json line = nlohmann::ordered_json::object();
      line["time"] = time;
      for (auto& [key, value] : row.items()) line[key] = value;
      out += core::json_text(line) + "\n";
    }
  } else {
    for (const auto& row : terminal::gpu_csv_rows(snapshot, fields, core::CsvStyle{true})) out += time + ", " + row + "\n";
  }
  return out;
}

std::string render_history(const std::vector<core::Snapshot>& snapshots, const std::vector<FieldId>& fields,
                           HistoryFormat format) {
  std::string out;
  HistoryOutput output(fields, format, [&out](std::string_view piece) { out += piece; });
  for (const auto& snapshot : snapshots) output.add(snapshot);
  output.finish();
  return out;
}

HistoryOutput::HistoryOutput(std::vector<FieldId> fields, HistoryFormat format, Write write)
    : fields_(std::move(fields)), format_(format), write_(std::move(write)), table_(1) {
  if (format_ == HistoryFormat::Table) {
    row_ = {"time"};
    for (auto f : fields_) row_.emplace_back(core::field_info(f).name);
    table_.add_row(row_);
  } else if (format_ == HistoryFormat::Csv) {
    write_(history_csv_header(fields_) + "\n");
  }
}

void HistoryOutput::add(const core::Snapshot& snapshot) {
  ++snapshots_;
  if (format_ != HistoryFormat::Table) {
    write_(history_rows(snapshot, fields_, format_));
    return;
  }
  const std::string time = core::format_iso8601(snapshot.timestamp);
  for (const auto& device : snapshot.devices) {
    row_.resize(fields_.size() + 1);
    row_[0] = time;
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      const auto f = fields_[i];
      row_[i + 1] = core::format_cell(core::field_info(f), device.get(f), snapshot, {true});
    }
    table_.add_row(row_);
  }
}

void HistoryOutput::finish() {
  if (format_ == HistoryFormat::Table) table_.write(write_);
}

std::string render_process_summaries(const std::vector<store::ProcessSummary>& processes, HistoryFormat format) {
  auto gpu = [](const store::ProcessSummary& p) { return p.gpu_index ? std::to_string(*p.gpu_index) : std::string("?"); };
  auto mib = [](const store::ProcessSummary& p) {
    return p.max_used_memory_bytes ? std::to_string(*p.max_used_memory_bytes / (1024 * 1024)) : std::string();
  };
  // The recorded command line (schema 11), else NVML's name (older files, --no-record-commands);
  // a table shows its start, CSV and JSON all of it.
  auto command = [](const store::ProcessSummary& p) { return p.command ? *p.command : p.name.empty() ? "?" : p.name; };
  auto csv_quoted = [](const std::string& raw) {
    const std::string text = core::csv_text(raw);  // no raw control byte in a cell (issue 31)
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string out;
  switch (format) {
    case HistoryFormat::Table: {
      std::vector<std::vector<std::string>> rows = {
          {"first seen", "last seen", "gpu", "pid", "user", "name", "max memory", "seen for", "command"}};
      for (const auto& p : processes) {
        rows.push_back({time_text(p.first_seen_ms), time_text(p.last_seen_ms), gpu(p), std::to_string(p.pid),
                        p.user.value_or("?"), p.name.empty() ? "?" : p.name,
                        p.max_used_memory_bytes ? mib(p) + " MiB" : "N/A",
                        duration_text(p.last_seen_ms - p.first_seen_ms),
                        store::clip_command(command(p), store::kCommandShownBytes)});
      }
      return terminal::text_table(rows, 2, 8);  // the command last, left-aligned
    }
    case HistoryFormat::Csv:
      out = "first_seen, last_seen, gpu, pid, user, name, max_used_memory [MiB], seen_for [s], command\n";
      for (const auto& p : processes) {
        out += fmt::format("{}, {}, {}, {}, {}, {}, {}, {:.3f}, {}\n", time_text(p.first_seen_ms), time_text(p.last_seen_ms),
                           gpu(p), p.pid, core::csv_text(p.user.value_or("[N/A]")), core::csv_text(p.name),
                           p.max_used_memory_bytes ? mib(p) : "[N/A]",
                           static_cast<double>(p.last_seen_ms - p.first_seen_ms) / 1000.0,
                           p.command ? csv_quoted(*p.command) : std::string("[N/A]"));
      }
      return out;
    case HistoryFormat::Jsonl:
      for (const auto& p : processes) {
        nlohmann::ordered_json row = nlohmann::ordered_json::object();
        row["first_seen"] = time_text(p.first_seen_ms);
        row["last_seen"] = time_text(p.last_seen_ms);
        row["gpu_index"] = p.gpu_index ? nlohmann::ordered_json(*p.gpu_index) : nlohmann::ordered_json(nullptr);
        row["gpu_uuid"] = p.gpu_uuid ? nlohmann::ordered_json(*p.gpu_uuid) : nlohmann::ordered_json(nullptr);
        row["pid"] = p.pid;
        row["user"] = p.user ? nlohmann::ordered_json(*p.user) : nlohmann::ordered_json(nullptr);
        row["name"] = p.name;
        row["command"] = p.command ? nlohmann::ordered_json(*p.command) : nlohmann::ordered_json(nullptr);
        row["max_used_memory_bytes"] =
            p.max_used_memory_bytes ? nlohmann::ordered_json(*p.max_used_memory_bytes) : nlohmann::ordered_json(nullptr);
        row["seen_for_s"] = static_cast<double>(p.last_seen_ms - p.first_seen_ms) / 1000.0;
        row["samples"] = p.samples;
        out += core::json_text(row) + "\n";
      }
      return out;
  }
  return out;
}

}  // namespace gpuwatch::history
