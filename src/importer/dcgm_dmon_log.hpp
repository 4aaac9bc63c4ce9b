#pragma once
// `dcgmi dmon` output (DCGM): a "#Entity  GPUTL  MCUTL ..." header of DCGM short names, an
// "ID  ..." units line, then one row per entity and sample: "GPU 0   45   12   1024   250.500".
// "N/A" is absent. Only GPU entities are imported (GPU-I, GPU-CI, links, switches and CPUs are
// skipped, said in the output). The output has no times: --start and --interval (dcgmi's -d,
// 1000 ms by default) give them; a sample starts where the GPU numbers start again.
// The columns mapped are those whose DCGM field and unit were checked in DCGM's own source
// (dcgmlib/src/dcgm_fields.cpp, dcgm_fields.h); docs/cli.md lists them. Others are not kept.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "importer/log_cells.hpp"
#include "importer/log_parser.hpp"

namespace gpuwatch::importer {

class DcgmDmonLogParser : public LogParser {
 public:
  explicit DcgmDmonLogParser(ParseOptions options);
  std::optional<ParseProblem> parse_line(std::string_view line, std::size_t line_no, bool complete,
                                         std::vector<ImportedRow>& rows) override;
  std::string format_name() const override { return "dcgmi dmon"; }

 private:
  struct Column {
    std::string name;
    std::optional<core::FieldId> field;
    double scale = 1.0;  // DCGM's unit -> base unit
  };
  std::optional<ParseProblem> set_header(std::string_view line, std::size_t line_no);

  ParseOptions options_;
  std::vector<Column> columns_;  // after the entity
  std::int64_t tick_ = -1;
  std::optional<unsigned> last_gpu_;
};

}  // namespace gpuwatch::importer
