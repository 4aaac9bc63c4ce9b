#include "importer/gpustat_log.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "importer/log_cells.hpp"

namespace gpuwatch::importer {
namespace {

struct GpustatKey {
  const char* key;
  core::FieldId field;
  double scale;  // gpustat's unit -> base unit
};

constexpr GpustatKey kGpustatKeys[] = {
    {"temperature.gpu", core::FieldId::TemperatureGpu, 1.0},
    {"fan.speed", core::FieldId::FanSpeed, 0.01},
    {"utilization.gpu", core::FieldId::UtilizationGpu, 0.01},
    {"utilization.enc", core::FieldId::UtilizationEncoder, 0.01},
    {"utilization.dec", core::FieldId::UtilizationDecoder, 0.01},
    {"power.draw", core::FieldId::PowerDraw, 1.0},
    {"enforced.power.limit", core::FieldId::EnforcedPowerLimit, 1.0},
    {"memory.used", core::FieldId::MemoryUsed, 1048576.0},
    {"memory.total", core::FieldId::MemoryTotal, 1048576.0},
};

}  // namespace

GpustatLogParser::GpustatLogParser(ParseOptions options) : options_(std::move(options)) {}

std::optional<ParseProblem> GpustatLogParser::parse_line(std::string_view line, std::size_t line_no, bool,
                                                         std::vector<ImportedRow>& rows) {
  if (depth_ == 0 && line.find_first_not_of(" \t") == std::string_view::npos) {
    skip("blank line");
    return std::nullopt;
  }
  if (depth_ == 0) object_line_ = line_no;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (depth_ == 0 && c != '{' && c != ' ' && c != '\t' && c != '\r')
      return ParseProblem{line_no, i + 1, "expected a gpustat --json object ('{')"};
    object_ += c;
    if (in_string_) {
      if (escaped_) escaped_ = false;
      else if (c == '\\') escaped_ = true;
      else if (c == '"') in_string_ = false;
      continue;
    }
    if (c == '"') in_string_ = true;
    if (c == '{') ++depth_;
    if (c == '}' && --depth_ == 0) {
      if (auto problem = read_object(rows)) return problem;
      object_.clear();
    }
  }
  object_ += '\n';
  if (object_.size() > kMaxGpustatObjectBytes)
    return ParseProblem{object_line_, 1, fmt::format("a JSON object larger than {} bytes", kMaxGpustatObjectBytes)};
  return std::nullopt;
}

std::optional<ParseProblem> GpustatLogParser::read_object(std::vector<ImportedRow>& rows) {
  nlohmann::json doc = nlohmann::json::parse(object_, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return ParseProblem{object_line_, 1, "not a JSON object"};
  const auto time_text = doc.value("query_time", std::string());
  const auto time = parse_log_time(time_text, options_.utc_offset_minutes);
  if (!time) return ParseProblem{object_line_, 1, fmt::format("query_time '{}' is not a time", time_text)};
  if (!doc.contains("gpus") || !doc["gpus"].is_array()) return ParseProblem{object_line_, 1, "no \"gpus\" array"};
  for (const auto& gpu : doc["gpus"]) {
    if (!gpu.is_object() || !gpu.contains("index") || !gpu["index"].is_number_unsigned())
      return ParseProblem{object_line_, 1, "a GPU without an index"};
    ImportedRow row;
    row.line = object_line_;
    row.time_ms = *time;
    row.gpu = gpu["index"].get<unsigned>();
    if (gpu.contains("uuid") && gpu["uuid"].is_string()) row.uuid = gpu["uuid"].get<std::string>();
    if (gpu.contains("name") && gpu["name"].is_string()) row.name = gpu["name"].get<std::string>();
    for (const auto& key : kGpustatKeys) {
      if (!gpu.contains(key.key) || gpu[key.key].is_null()) continue;
      if (!gpu[key.key].is_number())
        return ParseProblem{object_line_, 1, fmt::format("GPU {}: {} is not a number", row.gpu, key.key)};
      const double value = gpu[key.key].get<double>() * key.scale;
      if (key.field == core::FieldId::MemoryUsed || key.field == core::FieldId::MemoryTotal) {
        if (value < 0) return ParseProblem{object_line_, 1, fmt::format("GPU {}: {} is negative", row.gpu, key.key)};
        row.values.push_back(ImportedValue{key.field, static_cast<std::uint64_t>(value)});
      } else if (key.field == core::FieldId::TemperatureGpu) {
        row.values.push_back(ImportedValue{key.field, static_cast<std::int64_t>(value)});
      } else {
        row.values.push_back(ImportedValue{key.field, value});
      }
    }
    if (gpu.contains("processes") && gpu["processes"].is_array()) {
      for (const auto& p : gpu["processes"]) {
        if (!p.is_object() || !p.contains("pid") || !p["pid"].is_number_unsigned()) continue;
        ImportedProcess process;
        process.pid = p["pid"].get<std::uint32_t>();
        process.name = p.value("command", std::string());
        process.type = "C";
        if (p.contains("gpu_memory_usage") && p["gpu_memory_usage"].is_number_unsigned())
          process.used_memory_bytes = p["gpu_memory_usage"].get<std::uint64_t>() * 1048576ull;
        row.processes.push_back(std::move(process));
      }
    }
    if (row.values.empty() && row.processes.empty()) {
      skip("no value in the row");
      continue;
    }
    rows.push_back(std::move(row));
  }
  return std::nullopt;
}

}  // namespace gpuwatch::importer
