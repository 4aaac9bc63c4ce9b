#include "importer/import_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>

#include "core/field_table.hpp"
#include "core/sink_text.hpp"
#include "core/snapshot.hpp"
#include "importer/log_cells.hpp"
#include "store/history_writer.hpp"
#include "store/imports.hpp"

namespace gpuwatch::importer {
namespace {

core::ProcessType process_type_of(const std::string& letters) {
  if (letters == "G") return core::ProcessType::Graphics;
  if (letters == "C+G") return core::ProcessType::ComputeAndGraphics;
  return core::ProcessType::Compute;
}

// Feeds the rows to the history writer through one reused snapshot of one device.
class ImportWriter {
 public:
  ImportWriter(store::HistoryDatabase& db, const std::string& file)
      : writer_(db, store::WriterOptions{.max_pending_rows = kImportBatchRows * 4,
                                         .max_buffered_rows = kImportBatchRows * 8,
                                         .source = store::DataSource{false, file, true}}) {
    snapshot_.devices.resize(1);
  }

  core::Result<void> add(const ImportedRow& row) {
    core::DeviceSnapshot& device = snapshot_.devices[0];
    for (auto id : touched_) device.get(id) = core::FieldReading{};
    touched_.clear();
    snapshot_.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(row.time_ms));
    device.index = row.gpu;
    auto set = [&](core::FieldId id, core::FieldValue value) {
      device.get(id) = core::FieldReading::of(std::move(value));
      touched_.push_back(id);
    };
    for (const auto& v : row.values) set(v.field, v.value);
    if (row.uuid) set(core::FieldId::Uuid, *row.uuid);
    if (row.pci_bus_id) set(core::FieldId::PciBusId, *row.pci_bus_id);
    if (row.name) set(core::FieldId::Name, *row.name);
    device.processes.clear();
    for (const auto& p : row.processes) {
      core::ProcessSample sample;
      sample.pid = p.pid;
      sample.name = p.name;
      sample.type = process_type_of(p.type);
      sample.used_memory_bytes = p.used_memory_bytes;
      device.processes.push_back(std::move(sample));
    }
    writer_.add(snapshot_);
    if (writer_.pending_rows() >= kImportBatchRows) return flush();
    return {};
  }

  core::Result<void> flush() {
    auto written = writer_.flush();
    if (!written) return written.error();
    return {};
  }

 private:
  store::HistoryWriter writer_;
  core::Snapshot snapshot_;
  std::vector<core::FieldId> touched_;
};

std::string located(const std::string& label, const ParseProblem& p) {
  if (p.line == 0) return fmt::format("{}: {}", label, p.message);  // about the command line (--columns)
  return fmt::format("{}:{}:{}: {}", label, p.line, p.column, p.message);
}

}  // namespace

std::string import_file_name(const std::string& path) {
  if (path == "-") return "stdin";
  const auto name = std::filesystem::path(path).filename().string();
  return name.empty() ? path : name;
}

core::Result<ImportSummary> import_log(std::FILE* in, const std::string& label, const ParseOptions& options,
                                       store::HistoryDatabase* db) {
  ImportSummary summary;
  summary.file = import_file_name(label);
  std::unique_ptr<LogParser> parser;
  std::unique_ptr<ImportWriter> writer;
  if (db) writer = std::make_unique<ImportWriter>(*db, summary.file);
  std::map<unsigned, std::string> gpu_keys;  // as the history writer keys them
  std::vector<ImportedRow> rows;

  auto take_line = [&](std::string_view line, bool complete) -> core::Result<void> {
    ++summary.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a CRLF log: the parsers see LF lines
    if (!parser) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) return {};
      const LogFormat format = detect_log_format(line);
      parser = make_log_parser(format, options);
      summary.format = parser->format_name();
    }
    rows.clear();
    if (auto problem = parser->parse_line(line, summary.lines, complete, rows)) {
      return core::make_error(located(label, *problem), 2);
    }
    for (const auto& row : rows) {
      ++summary.rows;
      summary.processes += row.processes.size();
      summary.gpus.insert(row.gpu);
      summary.first_ms = std::min(summary.first_ms.value_or(row.time_ms), row.time_ms);
      summary.last_ms = std::max(summary.last_ms.value_or(row.time_ms), row.time_ms);
      for (const auto& v : row.values) summary.fields.insert(v.field);
      auto& key = gpu_keys[row.gpu];
      if (row.uuid) key = *row.uuid;
      else if (row.pci_bus_id && key.rfind("GPU-", 0) != 0) key = "pci:" + *row.pci_bus_id;
      if (writer) {
        if (auto added = writer->add(row); !added) return added.error();
      }
    }
    return {};
  };

  // Line by line through a fixed buffer: memory stays bounded whatever the file's size.
  std::string pending;
  std::vector<char> chunk(1 << 16);
  while (true) {
    const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), in);
    if (got == 0) break;
    std::size_t start = 0;
    for (std::size_t i = 0; i < got; ++i) {
      if (chunk[i] != '\n') continue;
      if (pending.empty()) {
        if (auto r = take_line(std::string_view(chunk.data() + start, i - start), true); !r) return r.error();
      } else {
        pending.append(chunk.data() + start, i - start);
        if (auto r = take_line(pending, true); !r) return r.error();
        pending.clear();
      }
      start = i + 1;
    }
    pending.append(chunk.data() + start, got - start);
    if (pending.size() > kMaxLineBytes)
      return core::make_error(fmt::format("{}:{}: a line longer than {} bytes: not a log this importer reads", label,
                                          summary.lines + 1, kMaxLineBytes),
                              2);
  }
  if (std::ferror(in)) return core::make_error(fmt::format("{}: cannot read: {}", label, std::strerror(errno)), 1);
  if (!pending.empty()) {
    if (auto r = take_line(pending, false); !r) return r.error();
  }
  if (!parser) return core::make_error(fmt::format("{}: empty: nothing to import", label), 2);
  summary.lost = parser->finish();
  summary.skipped = parser->skipped();
  summary.notes = parser->notes();
  if (writer) {
    if (auto flushed = writer->flush(); !flushed) return flushed.error();
    for (const auto& lost : summary.lost) {
      auto& key = gpu_keys[lost.gpu];
      const std::string gpu_key = key.empty() ? "import:" + summary.file + ":" + std::to_string(lost.gpu) : key;
      if (auto r = store::write_lost_gpu(*db, gpu_key, lost.time_ms); !r) return r.error();
    }
    if (summary.rows > 0) {
      store::ImportRecord record;
      record.file = summary.file;
      record.format = summary.format;
      record.first_ms = *summary.first_ms;
      record.last_ms = *summary.last_ms;
      record.gpus = static_cast<std::int64_t>(summary.gpus.size());
      record.rows = static_cast<std::int64_t>(summary.rows);
      record.imported_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
      if (auto r = store::write_import_record(*db, record); !r) return r.error();
    }
  }
  return summary;
}

std::string render_import_summary(const ImportSummary& s, bool dry_run) {
  // The file name, skip reasons and notes (which quote the log's own header) are the log's text:
  // encoded for the terminal (issue 31).
  std::string out = fmt::format("{}: {}\n", core::terminal_text(s.file), core::terminal_text(s.format));
  out += fmt::format("  {}: {} rows", dry_run ? "would import" : "imported", s.rows);
  if (s.processes > 0) out += fmt::format(" ({} process samples)", s.processes);
  out += "\n";
  std::vector<std::string> gpus;
  for (unsigned g : s.gpus) gpus.push_back(std::to_string(g));
  out += fmt::format("  gpus: {}{}\n", s.gpus.size(), gpus.empty() ? "" : fmt::format(" ({})", fmt::join(gpus, ", ")));
  if (s.first_ms) out += fmt::format("  range: {} to {}\n", format_utc_ms(*s.first_ms), format_utc_ms(*s.last_ms));
  std::vector<std::string> fields;
  for (auto id : s.fields) fields.emplace_back(core::field_info(id).name);
  out += fmt::format("  fields: {}\n", fields.empty() ? std::string("none") : fmt::format("{}", fmt::join(fields, ", ")));
  for (const auto& lost : s.lost)
    out += fmt::format("  lost: GPU {} at {} (stopped reporting)\n", lost.gpu, format_utc_ms(lost.time_ms));
  if (!s.skipped.empty()) {
    std::vector<std::string> parts;
    for (const auto& [reason, count] : s.skipped) parts.push_back(fmt::format("{} {}", count, core::terminal_text(reason)));
    out += fmt::format("  skipped lines: {}\n", fmt::join(parts, ", "));
  }
  for (const auto& n : s.notes) out += "  note: " + core::terminal_text(n) + "\n";
  return out;
}

}  // namespace gpuwatch::importer
