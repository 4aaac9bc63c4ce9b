#include "store/history_columns.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace gpuwatch::store {
namespace {

using core::FieldReading;
using core::FieldStatus;
using core::FieldValue;
using core::Unit;

std::string replace_suffix(std::string_view key, std::string_view from, std::string_view to) {
  if (key.size() >= from.size() && key.substr(key.size() - from.size()) == from) key.remove_suffix(from.size());
  return std::string(key) + std::string(to);
}

// Snaps a scaled value to the nearest integer when it is one up to rounding noise
// (0.93 * 100 = 93.00000000000001), so SQLite can store it as a small integer.
double snap_integral(double scaled) {
  double rounded = std::nearbyint(scaled);
  return std::fabs(scaled - rounded) <= 1e-9 * std::max(1.0, std::fabs(scaled)) ? rounded : scaled;
}

}  // namespace

HistoryColumn make_history_column(const core::FieldInfo& info, ValueKind kind) {
  HistoryColumn column{info.id, kind, std::string(info.json_key), "INTEGER", 1.0};
  switch (info.unit) {
    case Unit::Ratio: column.name = replace_suffix(info.json_key, "_ratio", "_percent"); column.scale = 100; break;
    case Unit::Watts: column.name = replace_suffix(info.json_key, "_w", "_mw"); column.scale = 1e3; break;
    case Unit::Joules: column.name = replace_suffix(info.json_key, "_j", "_mj"); column.scale = 1e3; break;
    case Unit::Hertz: column.name = replace_suffix(info.json_key, "_hz", "_mhz"); column.scale = 1e-6; break;
    default: break;
  }
  if (kind == ValueKind::Double || column.scale != 1.0) column.sql_type = "REAL";
  return column;
}

const std::vector<HistoryColumn>& history_columns() {
  static const std::vector<HistoryColumn> columns = [] {
    std::vector<HistoryColumn> list;
#define GW_HISTORY_COLUMN(id, kind, schema)                                                 \
  list.push_back(make_history_column(core::field_info(core::FieldId::id), ValueKind::kind)); \
  list.back().since_schema = schema;
#include "store/history_columns.def"
#undef GW_HISTORY_COLUMN
    return list;
  }();
  return columns;
}

std::vector<HistoryColumn> history_columns_of_schema(int schema_version) {
  std::vector<HistoryColumn> out;
  for (const auto& column : history_columns()) {
    if (column.since_schema <= schema_version) out.push_back(column);
  }
  return out;
}

const HistoryColumn* find_history_column(core::FieldId field) {
  for (const auto& column : history_columns()) {
    if (column.field == field) return &column;
  }
  return nullptr;
}

SqlValue encode_reading(const HistoryColumn& column, const FieldReading& reading) {
  if (!reading.ok()) return std::monostate{};
  if (column.sql_type == "REAL") {
    auto v = reading.as_double();
    if (!v || !std::isfinite(*v)) return std::monostate{};
    return snap_integral(*v * column.scale);
  }
  if (column.kind == ValueKind::Unsigned) {
    auto v = reading.as_uint();
    if (!v) return std::monostate{};
    return static_cast<std::int64_t>(*v);  // bit pattern kept: masks above 2^63 read back exactly
  }
  auto v = reading.as_int();
  if (!v) return std::monostate{};
  return *v;
}

void decode_reading_into(const HistoryColumn& column, const SqlValue& value, FieldReading& out) {
  out.reason = core::ErrorReason::None;
  out.vendor_code = 0;
  if (std::holds_alternative<std::monostate>(value)) {
    out.value.reset();
    out.status = FieldStatus::NotSupported;
    return;
  }
  double as_real = std::holds_alternative<double>(value) ? std::get<double>(value)
                                                          : static_cast<double>(std::get<std::int64_t>(value));
  std::int64_t as_int = std::holds_alternative<std::int64_t>(value) && column.scale == 1.0
                            ? std::get<std::int64_t>(value)
                            : static_cast<std::int64_t>(std::llround(as_real / column.scale));
  // In place when the reading already holds that type (a reused device: every row, every column).
  const auto set = [&out](auto x) {
    using T = decltype(x);
    if (out.value && std::holds_alternative<T>(*out.value)) std::get<T>(*out.value) = x;
    else out.value = FieldValue{x};
    out.status = FieldStatus::Ok;
  };
  switch (column.kind) {
    case ValueKind::Double: return set(as_real / column.scale);
    case ValueKind::Unsigned: return set(static_cast<std::uint64_t>(as_int));
    case ValueKind::Signed: return set(as_int);
    case ValueKind::Bool: return set(as_int != 0);
  }
  out.value.reset();
  out.status = FieldStatus::NotSupported;
}

FieldReading decode_reading(const HistoryColumn& column, const SqlValue& value) {
  FieldReading out;
  decode_reading_into(column, value, out);
  return out;
}

}  // namespace gpuwatch::store
