#include "sim/engine/value.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "sim/engine/nvml_errors.hpp"

namespace gpuwatch::sim {
namespace {

constexpr std::array<std::string_view, 11> kUnits = {" MiB", " MHz", " W", " %", " us", " C",
                                                     " KB/s", " J", " ms", " seconds", " mW"};

std::string_view trim_value_text(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_number(std::string_view s, Value& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (ec != std::errc() || p != s.data() + s.size()) return false;
    out.kind = Value::Kind::Number;
    out.integer = v;
    out.number = static_cast<double>(v);
    return true;
  }
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+')) return false;
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(d)) return false;
  out.kind = Value::Kind::Number;
  out.number = d;
  std::uint64_t u = 0;
  auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), u);
  out.integer = (ec2 == std::errc() && p2 == s.data() + s.size()) ? u
                : d > 0 ? static_cast<std::uint64_t>(std::llround(d)) : 0;
  return true;
}

}  // namespace

Value Value::make_number(double v) {
  Value out;
  out.kind = Kind::Number;
  out.number = v;
  out.integer = v > 0 ? static_cast<std::uint64_t>(std::llround(v)) : 0;
  out.text = fmt::format("{}", v);
  return out;
}

Value Value::make_error(int code) {
  Value out;
  out.kind = Kind::Error;
  out.error = code;
  out.text = code == 3 ? "[N/A]" : fmt::format("[{}]", nvml_error_text(code));
  return out;
}

Value Value::make_text(std::string s) {
  Value out;
  out.kind = Kind::Text;
  out.text = std::move(s);
  return out;
}

Value parse_value(std::string_view raw, std::string* problem) {
  std::string_view s = trim_value_text(raw);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    auto code = nvml_error_from_text(s.substr(1, s.size() - 2));
    if (!code) {
      if (problem) *problem = fmt::format("'{}' is not an NVML error text (use [N/A] or an nvmlErrorString text)", s);
      return Value::make_error(3);
    }
    Value v = Value::make_error(*code);
    v.text = std::string(s);
    return v;
  }
  if (s == "N/A") {  // nvidia-smi prints some unsupported fields without brackets
    Value v = Value::make_error(3);
    v.text = "N/A";
    return v;
  }
  for (auto unit : kUnits) {
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit) {
      Value v;
      if (parse_number(s.substr(0, s.size() - unit.size()), v)) {
        v.text = std::string(s.substr(0, s.size() - unit.size()));
        return v;
      }
    }
  }
  Value v;
  if (parse_number(s, v)) {
    v.text = std::string(s);
    return v;
  }
  return Value::make_text(std::string(s));
}

std::string display_text(const Value& value) {
  switch (value.kind) {
    case Value::Kind::Absent: return "";
    case Value::Kind::Error: return value.text.empty() ? fmt::format("[{}]", nvml_error_text(value.error)) : value.text;
    default: return value.text;
  }
}

}  // namespace gpuwatch::sim
