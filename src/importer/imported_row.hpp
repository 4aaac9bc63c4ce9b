#pragma once
// What a log parser gives the import: one row per GPU per sample time, with only the values the
// log had (a field it lacks, or shows as [N/A], "-" or [Not Supported], is not in `values`).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/field.hpp"

namespace gpuwatch::importer {

struct ImportedValue {
  core::FieldId field;
  core::FieldValue value;  // in the core's base units (bytes, hertz, watts, ratio 0..1)
};

struct ImportedProcess {
  std::uint32_t pid = 0;
  std::string name;
  std::string type;  // "C", "G", "C+G"
  std::optional<std::uint64_t> used_memory_bytes;
};

struct ImportedRow {
  std::int64_t time_ms = 0;  // Unix ms
  unsigned gpu = 0;          // the GPU's index (from the log, else its position)
  std::optional<std::string> uuid, pci_bus_id, name;  // identity, when the log has it
  std::vector<ImportedValue> values;
  std::vector<ImportedProcess> processes;  // pmon
  std::size_t line = 0;      // where it came from (1-based)
};

// A GPU the log shows stopped reporting (dmon: its last row has no value, or it is missing from
// the log's last two samples while others go on), and when.
struct LostGpu {
  unsigned gpu = 0;
  std::int64_t time_ms = 0;
};

// A line the parser could not read: 1-based line and column, and what is wrong.
struct ParseProblem {
  std::size_t line = 0, column = 0;
  std::string message;
};

}  // namespace gpuwatch::importer
