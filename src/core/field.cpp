#include "core/field.hpp"

#include <cmath>
#include <type_traits>

namespace gpuwatch::core {

const char* to_string(FieldStatus status) {
  switch (status) {
    case FieldStatus::Ok: return "ok";
    case FieldStatus::NotSupported: return "not_supported";
    case FieldStatus::NoPermission: return "no_permission";
    case FieldStatus::FunctionMissing: return "function_missing";
    case FieldStatus::NotApplicable: return "not_applicable";
    case FieldStatus::Failed: return "failed";
    case FieldStatus::NotRead: return "not_read";
  }
  return "unknown";
}

std::optional<double> FieldReading::as_double() const {
  if (!value) return std::nullopt;
  return std::visit(
      [](const auto& v) -> std::optional<double> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return std::nullopt;
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? 1.0 : 0.0;
        } else {
          return static_cast<double>(v);
        }
      },
      *value);
}

std::optional<std::uint64_t> FieldReading::as_uint() const {
  if (!value) return std::nullopt;
  if (const auto* u = std::get_if<std::uint64_t>(&*value)) return *u;
  if (const auto* i = std::get_if<std::int64_t>(&*value)) {
    if (*i >= 0) return static_cast<std::uint64_t>(*i);
    return std::nullopt;
  }
  if (const auto* b = std::get_if<bool>(&*value)) return *b ? 1u : 0u;
  if (const auto* d = std::get_if<double>(&*value)) {
    if (*d >= 0) return static_cast<std::uint64_t>(std::llround(*d));
  }
  return std::nullopt;
}

std::optional<std::int64_t> FieldReading::as_int() const {
  if (!value) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(&*value)) return *i;
  if (const auto* u = std::get_if<std::uint64_t>(&*value)) return static_cast<std::int64_t>(*u);
  if (const auto* b = std::get_if<bool>(&*value)) return *b ? 1 : 0;
  if (const auto* d = std::get_if<double>(&*value)) return static_cast<std::int64_t>(std::llround(*d));
  return std::nullopt;
}

std::optional<std::string> FieldReading::as_string() const {
  if (!value) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&*value)) return *s;
  return std::nullopt;
}

std::optional<bool> FieldReading::as_bool() const {
  if (!value) return std::nullopt;
  if (const auto* b = std::get_if<bool>(&*value)) return *b;
  return std::nullopt;
}

}  // namespace gpuwatch::core
