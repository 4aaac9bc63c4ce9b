#pragma once
// The GPU fields kept in gpu_samples and how each is stored. One table of truth:
// the list is store/history_columns.def, names come from the field table's JSON keys.
//
// Storage rule (compact and lossless at NVML's own resolution): values whose NVML
// source is integral in a smaller unit are stored scaled to that unit, in a REAL
// column (SQLite writes integral REAL values as small integers on disk):
//   ratio  -> <key>_percent (x100)   utilization_gpu_ratio -> utilization_gpu_percent
//   watts  -> <key>_mw      (x1000)  power_draw_w          -> power_draw_mw
//   joules -> <key>_mj      (x1000)  energy_total_j        -> energy_total_mj
//   hertz  -> <key>_mhz     (/1e6)   clocks_current_sm_hz  -> clocks_current_sm_mhz
// Everything else keeps its JSON key (already unit-suffixed) and base unit.
// NULL means unsupported or missing, never 0.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/field.hpp"
#include "core/field_table.hpp"

namespace gpuwatch::store {

// The variant type of the value in core (what the sampler produces).
enum class ValueKind : std::uint8_t { Double, Unsigned, Signed, Bool };

struct HistoryColumn {
  core::FieldId field;
  ValueKind kind;
  std::string name;      // SQL column name, e.g. "power_draw_mw"
  std::string sql_type;  // "REAL" or "INTEGER"
  double scale = 1.0;    // stored = value * scale
  int since_schema = 1;  // the schema version that added the column (history_columns.def)
};

// A value as SQLite holds it.
using SqlValue = std::variant<std::monostate, std::int64_t, double>;

// Every recorded column, in history_columns.def order.
const std::vector<HistoryColumn>& history_columns();
// The columns a file of SCHEMA_VERSION has (since_schema <= SCHEMA_VERSION), in order.
std::vector<HistoryColumn> history_columns_of_schema(int schema_version);
// nullptr when the field is not recorded.
const HistoryColumn* find_history_column(core::FieldId field);

// The column a field gets under the storage rule above (name, type, scale); kind as given.
HistoryColumn make_history_column(const core::FieldInfo& info, ValueKind kind);

// Reading -> stored value (NULL when the reading has no value).
SqlValue encode_reading(const HistoryColumn& column, const core::FieldReading& reading);
// Stored value -> reading. NULL reads back as NotSupported with no value.
core::FieldReading decode_reading(const HistoryColumn& column, const SqlValue& value);
// The same into OUT, in place when OUT already holds a value of that type (no temporary: the
// streamed reader decodes every column of every row into a reused device).
void decode_reading_into(const HistoryColumn& column, const SqlValue& value, core::FieldReading& out);

}  // namespace gpuwatch::store
