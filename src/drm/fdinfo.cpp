#include "drm/fdinfo.hpp"

#include <charconv>

namespace gpuwatch::drm {

std::string_view fdinfo_value(std::string_view value) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; };
  while (!value.empty() && blank(value.front())) value.remove_prefix(1);
  while (!value.empty() && blank(value.back())) value.remove_suffix(1);
  return value;
}

namespace {
// The leading number of VALUE and, in *UNIT, what follows it (without blanks).
std::optional<std::uint64_t> fdinfo_number_and_unit(std::string_view value, std::string_view* unit) {
  value = fdinfo_value(value);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || end == value.data()) return std::nullopt;
  *unit = fdinfo_value(value.substr(static_cast<std::size_t>(end - value.data())));
  return n;
}
}  // namespace

std::optional<std::uint64_t> fdinfo_leading_number(std::string_view value) {
  std::string_view unit;
  return fdinfo_number_and_unit(value, &unit);
}

std::optional<std::uint64_t> fdinfo_number(std::string_view value) {
  std::string_view unit;
  const auto n = fdinfo_number_and_unit(value, &unit);
  if (!n) return std::nullopt;
  if (unit == "KiB") return *n << 10;
  if (unit == "MiB") return *n << 20;
  if (unit == "GiB") return *n << 30;
  return n;
}

std::optional<std::uint32_t> numeric_name(const char* name) {
  const char* end = name;
  while (*end != '\0') ++end;
  if (end == name) return std::nullopt;
  std::uint32_t v = 0;
  const auto [ptr, ec] = std::from_chars(name, end, v);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return v;
}

}  // namespace gpuwatch::drm
