#include "importer/log_parser.hpp"

#include "importer/dcgm_dmon_log.hpp"
#include "importer/gpustat_log.hpp"
#include "importer/log_cells.hpp"
#include "importer/monitor_log.hpp"
#include "importer/query_gpu_log.hpp"

namespace gpuwatch::importer {

LogFormat detect_log_format(std::string_view first_line) {
  const auto first = first_line.find_first_not_of(" \t");
  if (first != std::string_view::npos && first_line[first] == '{') return LogFormat::GpustatJson;
  if (first != std::string_view::npos && first_line.substr(first).starts_with("#Entity")) return LogFormat::DcgmDmon;
  if (first_line.empty() || first_line.front() != '#') return LogFormat::QueryGpuCsv;
  bool gpu = false, pid = false;
  for (const auto& word : split_words(first_line.substr(1))) {
    gpu = gpu || word.text == "gpu";
    pid = pid || word.text == "pid";
  }
  if (gpu && pid) return LogFormat::Pmon;
  if (gpu) return LogFormat::Dmon;
  return LogFormat::QueryGpuCsv;
}

const char* to_string(LogFormat format) {
  switch (format) {
    case LogFormat::Dmon: return "nvidia-smi dmon";
    case LogFormat::Pmon: return "nvidia-smi pmon";
    case LogFormat::GpustatJson: return "gpustat --json";
    case LogFormat::DcgmDmon: return "dcgmi dmon";
    default: return "nvidia-smi --query-gpu CSV";
  }
}

std::unique_ptr<LogParser> make_log_parser(LogFormat format, const ParseOptions& options) {
  switch (format) {
    case LogFormat::Dmon: return std::make_unique<MonitorLogParser>(false, options);
    case LogFormat::Pmon: return std::make_unique<MonitorLogParser>(true, options);
    case LogFormat::GpustatJson: return std::make_unique<GpustatLogParser>(options);
    case LogFormat::DcgmDmon: return std::make_unique<DcgmDmonLogParser>(options);
    default: return std::make_unique<QueryGpuLogParser>(options);
  }
}

}  // namespace gpuwatch::importer
