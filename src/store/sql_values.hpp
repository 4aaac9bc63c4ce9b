#pragma once
// Optional values to and from SQLite columns (store-internal): NULL is absent, never 0.
#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::store {

inline std::optional<std::string> optional_text(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getString();
}

inline std::optional<std::int64_t> optional_int64(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getInt64();
}

// Binds VALUE, or NULL when absent.
template <typename T>
void bind_optional(SQLite::Statement& statement, const char* name, const std::optional<T>& value) {
  if (value) {
    statement.bind(name, *value);
  } else {
    statement.bind(name);
  }
}

}  // namespace gpuwatch::store
