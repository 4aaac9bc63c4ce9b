#include "importer/monitor_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace gpuwatch::importer {
namespace {

struct MonitorColumnSpec {
  const char* name;
  core::FieldId field;
  double scale;  // dmon's unit -> base unit
};

// dmon's columns that the history keeps (every -s set: p u c v m e t; others are reported as not
// kept). MB/s is read as MiB/s and fb's MB as MiB, as NVML counts them.
constexpr MonitorColumnSpec kMonitorColumns[] = {
    {"pwr", core::FieldId::PowerDraw, 1.0},
    {"gtemp", core::FieldId::TemperatureGpu, 1.0},
    {"mtemp", core::FieldId::TemperatureMemory, 1.0},
    {"sm", core::FieldId::UtilizationGpu, 0.01},
    {"mem", core::FieldId::UtilizationMemory, 0.01},
    {"enc", core::FieldId::UtilizationEncoder, 0.01},
    {"dec", core::FieldId::UtilizationDecoder, 0.01},
    {"mclk", core::FieldId::ClocksCurrentMemory, 1e6},
    {"pclk", core::FieldId::ClocksCurrentGraphics, 1e6},
    {"fb", core::FieldId::MemoryUsed, 1048576.0},
    {"rxpci", core::FieldId::PcieRxThroughput, 1048576.0},
    {"txpci", core::FieldId::PcieTxThroughput, 1048576.0},
};

bool parse_unsigned_cell(std::string_view text, std::uint32_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

MonitorLogParser::MonitorLogParser(bool processes, ParseOptions options)
    : processes_(processes), options_(std::move(options)) {}

void MonitorLogParser::set_header(const std::vector<Cell>& names) {
  columns_.clear();
  date_column_ = time_column_ = gpu_column_ = pid_column_ = -1;
  std::vector<std::string> unkept;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Column column;
    column.name = std::string(names[i].text);
    const int at = static_cast<int>(i);
    if (column.name == "Date") {
      column.role = Role::Date;
      date_column_ = at;
    } else if (column.name == "Time") {
      column.role = Role::Time;
      time_column_ = at;
    } else if (column.name == "gpu") {
      column.role = Role::Gpu;
      gpu_column_ = at;
    } else if (processes_ && column.name == "pid") {
      column.role = Role::Pid;
      pid_column_ = at;
    } else if (processes_ && column.name == "type") {
      column.role = Role::Type;
    } else if (processes_ && column.name == "command") {
      column.role = Role::Command;
    } else if (processes_ && column.name == "fb") {
      column.role = Role::Memory;
    } else if (!processes_) {
      for (const auto& spec : kMonitorColumns) {
        if (column.name == spec.name) {
          column.role = Role::Value;
          column.field = spec.field;
          column.scale = spec.scale;
        }
      }
    }
    if (column.role == Role::Ignored) unkept.push_back(column.name);
    columns_.push_back(std::move(column));
  }
  if (!unkept.empty()) note(fmt::format("columns not kept (the history has no column for them): {}", fmt::join(unkept, ", ")));
}

void MonitorLogParser::start_sample(std::int64_t time_ms) {
  ++tick_;
  previous_tick_time_ms_ = tick_time_ms_;
  tick_time_ms_ = time_ms;
  seen_this_tick_.clear();
  // A GPU that was not in the sample just ended is missing from then on.
  for (auto& [gpu, track] : gpus_) {
    if (track.last_tick == tick_ - 2 && !track.missing_since_ms && previous_tick_time_ms_) {
      track.missing_since_ms = previous_tick_time_ms_;
    }
  }
}

std::optional<ParseProblem> MonitorLogParser::parse_line(std::string_view line, std::size_t line_no, bool complete,
                                                         std::vector<ImportedRow>& rows) {
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    skip("blank line");
    return std::nullopt;
  }
  if (line.front() == '#') {
    auto names = split_words(line.substr(1), 2);
    const bool header = std::any_of(names.begin(), names.end(), [](const Cell& c) { return c.text == "gpu"; });
    if (header) {
      if (columns_.empty()) {
        set_header(names);
        if (gpu_column_ < 0) return ParseProblem{line_no, 1, "the header line has no gpu column"};
        if (processes_ && pid_column_ < 0) return ParseProblem{line_no, 1, "the pmon header line has no pid column"};
        return std::nullopt;
      }
      skip("header line");
    } else {
      skip(columns_.empty() ? "comment" : "header line");
    }
    return std::nullopt;
  }
  if (columns_.empty()) return ParseProblem{line_no, 1, "a row before the \"# gpu ...\" header line"};
  auto cells = split_words(line);
  if (!complete && !cells.empty()) cells.pop_back();  // cut off: its last cell may be part of a number
  // pmon's command may hold blanks: the cells past the last column are its words.
  const bool command_last = !columns_.empty() && columns_.back().role == Role::Command;
  if ((cells.size() > columns_.size() && !command_last) || (complete && cells.size() < columns_.size() && !processes_)) {
    const std::size_t column = cells.size() > columns_.size() ? cells[columns_.size()].column : line.size() + 1;
    return ParseProblem{line_no, column, fmt::format("{} cells but the header has {} columns", cells.size(), columns_.size())};
  }
  if (cells.size() <= static_cast<std::size_t>(gpu_column_)) {
    skip("cut-off last line");
    return std::nullopt;
  }
  const Cell& gpu_cell = cells[static_cast<std::size_t>(gpu_column_)];
  std::uint32_t gpu = 0;
  if (!parse_unsigned_cell(gpu_cell.text, gpu) || gpu > 4096)
    return ParseProblem{line_no, gpu_cell.column, fmt::format("gpu: '{}' is not a GPU index", gpu_cell.text)};

  // Its time, and whether it starts a new sample.
  std::optional<std::int64_t> time;
  if (date_column_ >= 0 && time_column_ >= 0 && cells.size() > static_cast<std::size_t>(std::max(date_column_, time_column_))) {
    const Cell& date = cells[static_cast<std::size_t>(date_column_)];
    const Cell& clock = cells[static_cast<std::size_t>(time_column_)];
    time = parse_log_time(std::string(date.text) + " " + std::string(clock.text), options_.utc_offset_minutes);
    if (!time) return ParseProblem{line_no, date.column, fmt::format("'{} {}' is not a time", date.text, clock.text)};
  } else if (!options_.start_ms) {
    return ParseProblem{line_no, 1,
                        "the log has no Date and Time columns (dmon/pmon -o DT): give --start TIME (and --interval) "
                        "for when its first sample was taken"};
  }
  std::optional<std::uint32_t> pid;
  if (processes_ && static_cast<std::size_t>(pid_column_) < cells.size() &&
      !is_absent_cell(cells[static_cast<std::size_t>(pid_column_)].text)) {
    const Cell& pid_cell = cells[static_cast<std::size_t>(pid_column_)];
    std::uint32_t value = 0;
    if (!parse_unsigned_cell(pid_cell.text, value))
      return ParseProblem{line_no, pid_cell.column, fmt::format("pid: '{}' is not a process id", pid_cell.text)};
    pid = value;
  }
  bool new_sample = false;
  if (time) {
    new_sample = !tick_time_ms_ || *time != *tick_time_ms_;
  } else {
    const bool repeat = std::find(seen_this_tick_.begin(), seen_this_tick_.end(), std::pair{gpu, pid.value_or(0)}) !=
                        seen_this_tick_.end();
    new_sample = !last_gpu_ || gpu < *last_gpu_ || (!processes_ && gpu == *last_gpu_) || repeat;
  }
  if (new_sample) start_sample(time ? *time : *options_.start_ms + tick_ * options_.interval_ms);
  last_gpu_ = gpu;
  seen_this_tick_.emplace_back(gpu, pid.value_or(0));

  ImportedRow row;
  row.line = line_no;
  row.gpu = gpu;
  row.time_ms = *tick_time_ms_;
  ImportedProcess process;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const Column& column = columns_[i];
    const Cell& cell = cells[i];
    if (column.role == Role::Value) {
      auto parsed = parse_field_cell(*column.field, cell.text, column.scale);
      if (!parsed.problem.empty()) return ParseProblem{line_no, cell.column, column.name + ": " + parsed.problem};
      if (parsed.value) row.values.push_back(ImportedValue{*column.field, std::move(*parsed.value)});
    } else if (column.role == Role::Type) {
      if (!is_absent_cell(cell.text)) process.type = std::string(cell.text);
    } else if (column.role == Role::Command) {
      // The command is the rest of the line (it may hold blanks).
      if (!is_absent_cell(cell.text)) process.name = std::string(line.substr(cell.column - 1));
      while (!process.name.empty() && (process.name.back() == ' ' || process.name.back() == '\r')) process.name.pop_back();
      break;
    } else if (column.role == Role::Memory) {
      auto parsed = parse_field_cell(core::FieldId::MemoryUsed, cell.text, 1048576.0);
      if (!parsed.problem.empty()) return ParseProblem{line_no, cell.column, column.name + ": " + parsed.problem};
      if (parsed.value) process.used_memory_bytes = std::get<std::uint64_t>(*parsed.value);
    }
  }
  GpuTrack& track = gpus_[gpu];
  track.last_tick = tick_;
  track.last_time_ms = row.time_ms;
  track.missing_since_ms.reset();
  if (processes_) {
    track.last_row_empty = false;
    if (!pid) {
      skip("no process on the GPU");
      return std::nullopt;
    }
    process.pid = *pid;
    row.processes.push_back(std::move(process));
    rows.push_back(std::move(row));
    return std::nullopt;
  }
  track.last_row_empty = row.values.empty();
  if (row.values.empty()) {
    skip("no value in the row");
    return std::nullopt;
  }
  rows.push_back(std::move(row));
  return std::nullopt;
}

std::vector<LostGpu> MonitorLogParser::finish() {
  std::vector<LostGpu> lost;
  if (processes_) return lost;
  for (const auto& [gpu, track] : gpus_) {
    if (track.last_row_empty) {
      lost.push_back(LostGpu{gpu, track.last_time_ms});
    } else if (track.last_tick <= tick_ - 2 && track.missing_since_ms) {
      lost.push_back(LostGpu{gpu, *track.missing_since_ms});
    }
  }
  return lost;
}

}  // namespace gpuwatch::importer
