#pragma once
// nvidia-smi --query-gpu=... --format=csv logs: with a header, or `noheader` with the columns
// named by --columns; with or without units; `-l`/`-lms` loops; the cron form (a time, then each
// GPU's row joined by '|', as `paste -sd '|'` makes it). GPUs by their index column, else by UUID
// or PCI bus id, else by position in each sample (rows less than kSampleWindowMs apart, or
// --gpus N rows, are one sample), which the notes say. A GPU whose last rows say "[GPU is lost]"
// is lost; nvidia-smi's own error lines ("Unable to determine the device handle ...") are skipped.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "importer/log_cells.hpp"
#include "importer/log_parser.hpp"

namespace gpuwatch::importer {

inline constexpr std::int64_t kSampleWindowMs = 250;

class QueryGpuLogParser : public LogParser {
 public:
  explicit QueryGpuLogParser(ParseOptions options);
  std::optional<ParseProblem> parse_line(std::string_view line, std::size_t line_no, bool complete,
                                         std::vector<ImportedRow>& rows) override;
  // GPUs whose last rows say "[GPU is lost]".
  std::vector<LostGpu> finish() override;
  std::string format_name() const override { return "nvidia-smi --query-gpu CSV"; }

 private:
  enum class Role { Value, Timestamp, Index, Uuid, PciBusId, Name, Ignored };
  struct Column {
    std::string name;
    Role role = Role::Ignored;
    std::optional<core::FieldId> field;
  };
  std::optional<ParseProblem> set_columns(const std::vector<Cell>& names, std::size_t line_no);
  std::optional<ParseProblem> read_gpu(const std::vector<Cell>& cells, std::size_t first, std::size_t line_no,
                                       std::optional<std::int64_t> line_time, std::optional<unsigned> position,
                                       std::vector<ImportedRow>& rows);
  unsigned position_in_sample(std::optional<std::int64_t> time_ms);
  std::int64_t time_without_timestamp();

  ParseOptions options_;
  std::vector<Column> columns_;
  std::string header_;  // the header line as written (a repeat of it is skipped)
  bool have_columns_ = false;
  int timestamp_column_ = -1, index_column_ = -1, uuid_column_ = -1, pci_column_ = -1;
  std::map<std::string, unsigned> identities_;  // UUID or bus id -> GPU number, first seen first
  std::optional<std::int64_t> sample_start_ms_;
  unsigned sample_position_ = 0;
  std::int64_t samples_ = 0;  // samples started (for logs without times)
  std::size_t rows_ = 0;
  std::optional<unsigned> last_gpu_;
  std::map<unsigned, std::int64_t> lost_;  // GPU -> when it was first seen lost (since it last answered)
};

}  // namespace gpuwatch::importer
