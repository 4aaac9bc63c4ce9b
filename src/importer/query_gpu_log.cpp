#include "importer/query_gpu_log.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/field_table.hpp"
#include "store/history_columns.hpp"

namespace gpuwatch::importer {
namespace {

// "utilization.gpu [%]" -> "utilization.gpu"
std::string_view query_name_of(std::string_view header_cell) {
  const auto bracket = header_cell.find(" [");
  return bracket == std::string_view::npos ? header_cell : header_cell.substr(0, bracket);
}

bool looks_like_header(const std::vector<Cell>& cells) {
  if (cells.empty()) return false;
  const auto name = query_name_of(cells.front().text);
  return name == "timestamp" || core::find_field(name).has_value();
}

}  // namespace

QueryGpuLogParser::QueryGpuLogParser(ParseOptions options) : options_(std::move(options)) {}

std::optional<ParseProblem> QueryGpuLogParser::set_columns(const std::vector<Cell>& names, std::size_t line_no) {
  std::vector<std::string> unkept, unknown;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Column column;
    column.name = std::string(query_name_of(names[i].text));
    const auto field = core::find_field(column.name);
    const int at = static_cast<int>(i);
    if (field == core::FieldId::Timestamp) {
      column.role = Role::Timestamp;
      timestamp_column_ = at;
    } else if (field == core::FieldId::Index) {
      column.role = Role::Index;
      index_column_ = at;
    } else if (field == core::FieldId::Uuid) {
      column.role = Role::Uuid;
      uuid_column_ = at;
    } else if (field == core::FieldId::PciBusId) {
      column.role = Role::PciBusId;
      pci_column_ = at;
    } else if (field == core::FieldId::Name) {
      column.role = Role::Name;
    } else if (field && store::find_history_column(*field)) {
      column.role = Role::Value;
      column.field = field;
    } else if (field) {
      unkept.push_back(column.name);
    } else {
      if (line_no == 0) return ParseProblem{0, i + 1, fmt::format("--columns: '{}' is not a query name gpuwatch knows", column.name)};
      unknown.push_back(column.name);
    }
    columns_.push_back(std::move(column));
  }
  if (!unkept.empty()) note(fmt::format("not kept (the history has no column for them): {}", fmt::join(unkept, ", ")));
  if (!unknown.empty()) note(fmt::format("not imported (not query names gpuwatch knows): {}", fmt::join(unknown, ", ")));
  have_columns_ = true;
  return std::nullopt;
}

std::int64_t QueryGpuLogParser::time_without_timestamp() {
  return *options_.start_ms + (samples_ - 1) * options_.interval_ms;
}

unsigned QueryGpuLogParser::position_in_sample(std::optional<std::int64_t> time_ms) {
  bool new_sample = false;
  if (options_.gpus) {
    new_sample = rows_ % *options_.gpus == 0;
  } else if (time_ms) {
    new_sample = !sample_start_ms_ || *time_ms - *sample_start_ms_ > kSampleWindowMs || *time_ms < *sample_start_ms_;
  } else {
    new_sample = true;  // no time, no --gpus: one GPU
  }
  ++rows_;
  if (new_sample) {
    sample_start_ms_ = time_ms;
    sample_position_ = 0;
    ++samples_;
    return 0;
  }
  if (++sample_position_ == 1) {
    note(options_.gpus ? fmt::format("no index, uuid or pci.bus_id column: GPUs told apart by position, {} rows a sample (--gpus)",
                                     *options_.gpus)
                       : fmt::format("no index, uuid or pci.bus_id column: GPUs told apart by their position in each "
                                     "sample (rows less than {} ms apart are one sample; --gpus N to say how many)",
                                     kSampleWindowMs));
  }
  return sample_position_;
}

std::optional<ParseProblem> QueryGpuLogParser::read_gpu(const std::vector<Cell>& cells, std::size_t first,
                                                        std::size_t line_no, std::optional<std::int64_t> line_time,
                                                        std::optional<unsigned> position, std::vector<ImportedRow>& rows) {
  ImportedRow row;
  row.line = line_no;
  std::optional<std::int64_t> time = line_time;
  if (timestamp_column_ >= 0) {
    const Cell& cell = cells[first + static_cast<std::size_t>(timestamp_column_)];
    time = parse_log_time(cell.text, options_.utc_offset_minutes);
    if (!time) return ParseProblem{line_no, cell.column, fmt::format("'{}' is not a time", cell.text)};
  }
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const Column& column = columns_[i];
    const Cell& cell = cells[first + i];
    switch (column.role) {
      case Role::Value: {
        auto parsed = parse_field_cell(*column.field, cell.text);
        if (!parsed.problem.empty()) return ParseProblem{line_no, cell.column, column.name + ": " + parsed.problem};
        if (parsed.value) row.values.push_back(ImportedValue{*column.field, std::move(*parsed.value)});
        break;
      }
      case Role::Index: {
        unsigned index = 0;
        const auto [end, ec] = std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), index);
        if (ec != std::errc() || end != cell.text.data() + cell.text.size() || index > 4096)
          return ParseProblem{line_no, cell.column, fmt::format("index: '{}' is not a GPU index", cell.text)};
        row.gpu = index;
        break;
      }
      case Role::Uuid:
        if (!is_absent_cell(cell.text)) row.uuid = std::string(cell.text);
        break;
      case Role::PciBusId:
        if (!is_absent_cell(cell.text)) row.pci_bus_id = std::string(cell.text);
        break;
      case Role::Name:
        if (!is_absent_cell(cell.text)) row.name = std::string(cell.text);
        break;
      default: break;
    }
  }
  if (!time && !options_.start_ms) {
    return ParseProblem{line_no, 1,
                        "the log has no timestamp column: give --start TIME (and --interval) for when its first "
                        "sample was taken, or name the timestamp column in --columns"};
  }
  // Logs without times (--start): a sample starts where the GPU numbers start again (the cron
  // form: at each line, counted by parse_line; by position: position_in_sample counts).
  if (index_column_ < 0) {
    const auto& identity = row.uuid ? row.uuid : row.pci_bus_id;
    if (identity) {
      row.gpu = identities_.emplace(*identity, static_cast<unsigned>(identities_.size())).first->second;
      if (!time && !position && (!last_gpu_ || row.gpu <= *last_gpu_)) ++samples_;
    } else {
      row.gpu = position ? *position : position_in_sample(time);
    }
  } else if (!time && !position && (!last_gpu_ || row.gpu <= *last_gpu_)) {
    ++samples_;
  }
  last_gpu_ = row.gpu;
  row.time_ms = time ? *time : time_without_timestamp();
  // "[GPU is lost]" in any cell: the GPU stopped answering at that time.
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (cells[first + i].text == "[GPU is lost]") {
      if (!lost_.count(row.gpu)) lost_[row.gpu] = row.time_ms;
      skip("GPU is lost");
      return std::nullopt;
    }
  }
  if (row.values.empty()) {
    skip("no value in the row");
    return std::nullopt;
  }
  lost_.erase(row.gpu);  // it answers again
  rows.push_back(std::move(row));
  return std::nullopt;
}

std::optional<ParseProblem> QueryGpuLogParser::parse_line(std::string_view line, std::size_t line_no, bool complete,
                                                          std::vector<ImportedRow>& rows) {
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    skip("blank line");
    return std::nullopt;
  }
  if (line.front() == '#') {
    skip("comment");
    return std::nullopt;
  }
  if (!have_columns_) {
    auto first_cells = split_cells(line, ',');
    if (!options_.columns.empty()) {
      std::vector<Cell> names;
      for (const auto& c : options_.columns) names.push_back(Cell{c, names.size() + 1});
      if (auto problem = set_columns(names, 0)) return problem;
      if (looks_like_header(first_cells)) {
        header_ = std::string(line);
        skip("header line");
        return std::nullopt;
      }
    } else {
      if (!looks_like_header(first_cells))
        return ParseProblem{line_no, 1,
                            "no header line: name the columns of a noheader log with --columns (e.g. --columns "
                            "timestamp,index,utilization.gpu,memory.used)"};
      header_ = std::string(line);
      if (auto problem = set_columns(first_cells, line_no)) return problem;
      return std::nullopt;
    }
  }
  // What nvidia-smi prints instead of a row when it cannot read a GPU (one fallen off the bus)
  // or finds none: said as skipped, never a parse error that stops the import.
  for (const char* message : {"Unable to determine the device handle", "No devices were found",
                              "Failed to initialize NVML", "NVIDIA-SMI has failed"}) {
    if (line.find(message) != std::string_view::npos) {
      skip(std::string("nvidia-smi error line (") + message + ")");
      return std::nullopt;
    }
  }
  if (!header_.empty() && line == header_) {
    skip("header line");
    return std::nullopt;
  }
  if (!complete) {
    skip("cut-off last line");
    return std::nullopt;
  }
  const std::size_t width = columns_.size();
  if (line.find('|') != std::string_view::npos) {
    // The cron form: [time,] GPU 0's cells | GPU 1's cells | ...
    std::size_t start = 0;
    std::optional<std::int64_t> line_time;
    unsigned position = 0;
    while (start <= line.size()) {
      const std::size_t bar = line.find('|', start);
      const std::string_view part = line.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
      auto cells = split_cells(part, ',', start + 1);
      std::size_t first = 0;
      if (position == 0 && cells.size() == width + 1) {
        line_time = parse_log_time(cells[0].text, options_.utc_offset_minutes);
        if (!line_time) return ParseProblem{line_no, cells[0].column, fmt::format("'{}' is not a time", cells[0].text)};
        first = 1;
      }
      if (cells.size() - first != width)
        return ParseProblem{line_no, start + 1,
                            fmt::format("GPU {} of the line has {} cells but the log has {} columns", position,
                                        cells.size() - first, width)};
      if (!line_time && timestamp_column_ < 0 && position == 0) ++samples_;
      if (position == 1 && index_column_ < 0 && uuid_column_ < 0 && pci_column_ < 0)
        note("no index, uuid or pci.bus_id column: GPUs told apart by their position in each '|'-joined line");
      if (auto problem = read_gpu(cells, first, line_no, line_time, position, rows)) return problem;
      ++position;
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    return std::nullopt;
  }
  auto cells = split_cells(line, ',');
  if (cells.size() != width) {
    const std::size_t column = cells.size() > width ? cells[width].column : line.size() + 1;
    return ParseProblem{line_no, column, fmt::format("{} cells but the log has {} columns", cells.size(), width)};
  }
  return read_gpu(cells, 0, line_no, std::nullopt, std::nullopt, rows);
}

std::vector<LostGpu> QueryGpuLogParser::finish() {
  std::vector<LostGpu> out;
  for (const auto& [gpu, time_ms] : lost_) out.push_back(LostGpu{gpu, time_ms});
  return out;
}

}  // namespace gpuwatch::importer
