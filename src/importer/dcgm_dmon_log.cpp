#include "importer/dcgm_dmon_log.hpp"

#include <fmt/format.h>

#include <charconv>

namespace gpuwatch::importer {
namespace {

struct DcgmColumnSpec {
  const char* short_name;  // dcgmi dmon's column (the field's shortName in DCGM)
  core::FieldId field;
  double scale;  // DCGM's unit -> base unit
};

// Checked against DCGM's dcgmlib/src/dcgm_fields.cpp (short names) and dcgm_fields.h (ids, units)
// at NVIDIA/DCGM 72fa3fe. Field ids in the comments (what `dcgmi dmon -e` takes).
constexpr DcgmColumnSpec kDcgmColumns[] = {
    {"GPUTL", core::FieldId::UtilizationGpu, 0.01},         // 203 gpu_utilization, %
    {"MCUTL", core::FieldId::UtilizationMemory, 0.01},      // 204 mem_copy_utilization, %
    {"ECUTL", core::FieldId::UtilizationEncoder, 0.01},     // 206 enc_utilization, %
    {"DCUTL", core::FieldId::UtilizationDecoder, 0.01},     // 207 dec_utilization, %
    {"FBTTL", core::FieldId::MemoryTotal, 1048576.0},       // 250 fb_total, MB (MiB, as NVML counts)
    {"FBUSD", core::FieldId::MemoryUsed, 1048576.0},        // 252 fb_used, MB
    {"FBRSV", core::FieldId::MemoryReserved, 1048576.0},    // 253 fb_resv, MB
    {"TMPTR", core::FieldId::TemperatureGpu, 1.0},          // 150 gpu_temp, C
    {"MMTMP", core::FieldId::TemperatureMemory, 1.0},       // 140 memory_temp, C
    {"POWER", core::FieldId::PowerDraw, 1.0},               // 155 power_usage, W
    {"SMCLK", core::FieldId::ClocksCurrentSm, 1e6},         // 100 sm_clock, MHz
    {"MMCLK", core::FieldId::ClocksCurrentMemory, 1e6},     // 101 memory_clock, MHz
};

}  // namespace

DcgmDmonLogParser::DcgmDmonLogParser(ParseOptions options) : options_(std::move(options)) {}

std::optional<ParseProblem> DcgmDmonLogParser::set_header(std::string_view line, std::size_t line_no) {
  const auto words = split_words(line);
  if (words.empty() || words[0].text != "#Entity") return ParseProblem{line_no, 1, "expected the \"#Entity ...\" header line"};
  columns_.clear();
  std::vector<std::string> unkept;
  for (std::size_t i = 1; i < words.size(); ++i) {
    Column column;
    column.name = std::string(words[i].text);
    for (const auto& spec : kDcgmColumns) {
      if (column.name == spec.short_name) {
        column.field = spec.field;
        column.scale = spec.scale;
      }
    }
    if (!column.field) unkept.push_back(column.name);
    columns_.push_back(std::move(column));
  }
  if (columns_.empty()) return ParseProblem{line_no, line.size() + 1, "the header line names no field"};
  if (!unkept.empty())
    note(fmt::format("columns not kept (not a DCGM field gpuwatch maps, or the history has no column for it): {}",
                     fmt::join(unkept, ", ")));
  return std::nullopt;
}

std::optional<ParseProblem> DcgmDmonLogParser::parse_line(std::string_view line, std::size_t line_no, bool complete,
                                                          std::vector<ImportedRow>& rows) {
  if (line.find_first_not_of(" \t") == std::string_view::npos) {
    skip("blank line");
    return std::nullopt;
  }
  const auto first = line.find_first_not_of(" \t");
  if (line.substr(first).starts_with("#Entity")) {
    if (columns_.empty()) return set_header(line, line_no);
    skip("header line");
    return std::nullopt;
  }
  if (columns_.empty()) return ParseProblem{line_no, 1, "a row before the \"#Entity ...\" header line"};
  auto words = split_words(line);
  if (words[0].text == "ID") {
    skip("units line");
    return std::nullopt;
  }
  if (words[0].text != "GPU" || (words.size() > 2 && words[2].text == "LINK")) {
    skip("not a GPU entity (GPU-I, GPU-CI, link, switch, CPU)");
    return std::nullopt;
  }
  if (!complete) {
    skip("cut-off last line");
    return std::nullopt;
  }
  if (words.size() < 2) return ParseProblem{line_no, line.size() + 1, "no GPU id after GPU"};
  unsigned gpu = 0;
  const auto id = words[1].text;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), gpu);
  if (ec != std::errc() || end != id.data() + id.size() || gpu > 4096)
    return ParseProblem{line_no, words[1].column, fmt::format("'{}' is not a GPU id", id)};
  if (words.size() != columns_.size() + 2) {
    const std::size_t column = words.size() > columns_.size() + 2 ? words[columns_.size() + 2].column : line.size() + 1;
    return ParseProblem{line_no, column,
                        fmt::format("{} values but the header has {} columns", words.size() - 2, columns_.size())};
  }
  if (!options_.start_ms)
    return ParseProblem{line_no, 1,
                        "dcgmi dmon output has no times: give --start TIME (and --interval, dcgmi's -d) for when its "
                        "first sample was taken"};
  if (!last_gpu_ || gpu <= *last_gpu_) ++tick_;
  last_gpu_ = gpu;

  ImportedRow row;
  row.line = line_no;
  row.gpu = gpu;
  row.time_ms = *options_.start_ms + tick_ * options_.interval_ms;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const Column& column = columns_[i];
    const Cell& cell = words[i + 2];
    if (!column.field) continue;
    auto parsed = parse_field_cell(*column.field, cell.text, column.scale);
    if (!parsed.problem.empty()) return ParseProblem{line_no, cell.column, column.name + ": " + parsed.problem};
    if (parsed.value) row.values.push_back(ImportedValue{*column.field, std::move(*parsed.value)});
  }
  if (row.values.empty()) {
    skip("no value in the row");
    return std::nullopt;
  }
  rows.push_back(std::move(row));
  return std::nullopt;
}

}  // namespace gpuwatch::importer
