#pragma once
// `gpustat --json` logs: one JSON object per query (gpustat prints it indented over many lines;
// objects one after another, as a loop appending to a file writes them). Its query_time (local
// time, no zone: --utc-offset) for every GPU; index, uuid, name and the fields gpustat reads
// (temperature.gpu, fan.speed, utilization.gpu/enc/dec, power.draw, enforced.power.limit,
// memory.used/total in MiB), null as absent; its processes (pid, command, gpu_memory_usage).
#include <optional>
#include <string>
#include <vector>

#include "importer/log_parser.hpp"

namespace gpuwatch::importer {

// The largest object read (a GPU node's query is a few KB).
inline constexpr std::size_t kMaxGpustatObjectBytes = 16 << 20;

class GpustatLogParser : public LogParser {
 public:
  explicit GpustatLogParser(ParseOptions options);
  std::optional<ParseProblem> parse_line(std::string_view line, std::size_t line_no, bool complete,
                                         std::vector<ImportedRow>& rows) override;
  std::string format_name() const override { return "gpustat --json"; }

 private:
  std::optional<ParseProblem> read_object(std::vector<ImportedRow>& rows);

  ParseOptions options_;
  std::string object_;        // the object being read
  std::size_t object_line_ = 0;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
};

}  // namespace gpuwatch::importer
