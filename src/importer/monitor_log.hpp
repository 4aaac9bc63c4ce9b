#pragma once
// nvidia-smi dmon and pmon logs. The "# gpu pwr gtemp ..." header line names the columns of
// whatever -s sets were chosen (repeated headers are skipped); "-" is absent. Times from the
// Date and Time columns of `-o DT`, else from --start and --interval (a sample starts where the
// GPU numbers start again). dmon: a GPU whose last row has no value, or that is missing from the
// log's last two samples while others go on, is lost (the K80s after Xid 79). pmon: one process
// per row (memory from its fb column; per-process sm/mem/enc/dec are not kept).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "importer/log_cells.hpp"
#include "importer/log_parser.hpp"

namespace gpuwatch::importer {

class MonitorLogParser : public LogParser {
 public:
  MonitorLogParser(bool processes, ParseOptions options);
  std::optional<ParseProblem> parse_line(std::string_view line, std::size_t line_no, bool complete,
                                         std::vector<ImportedRow>& rows) override;
  std::vector<LostGpu> finish() override;
  std::string format_name() const override { return processes_ ? "nvidia-smi pmon" : "nvidia-smi dmon"; }

 private:
  enum class Role { Value, Date, Time, Gpu, Pid, Type, Command, Memory, Ignored };
  struct Column {
    std::string name;
    Role role = Role::Ignored;
    std::optional<core::FieldId> field;
    double scale = 1.0;  // display unit -> base unit
  };
  struct GpuTrack {
    std::int64_t last_tick = 0, last_time_ms = 0;
    bool last_row_empty = false;
    std::optional<std::int64_t> missing_since_ms;  // the first sample it was not in
  };
  void set_header(const std::vector<Cell>& names);
  void start_sample(std::int64_t time_ms);

  bool processes_;
  ParseOptions options_;
  std::vector<Column> columns_;
  int date_column_ = -1, time_column_ = -1, gpu_column_ = -1, pid_column_ = -1;
  std::map<unsigned, GpuTrack> gpus_;
  std::int64_t tick_ = 0;
  std::optional<std::int64_t> tick_time_ms_, previous_tick_time_ms_;
  std::optional<unsigned> last_gpu_;
  std::vector<std::pair<unsigned, std::uint32_t>> seen_this_tick_;
};

}  // namespace gpuwatch::importer
