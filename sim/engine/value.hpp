#pragma once
// One scenario value, as nvidia-smi displays it: a number in display units (W, MiB,
// MHz, %, us, C), a text ("Enabled", "P0", "NVIDIA H200") or an NVML error written in
// brackets ("[N/A]" = NOT_SUPPORTED, "[GPU is lost]", ...).
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwatch::sim {

struct Value {
  enum class Kind : unsigned char { Absent, Number, Text, Error };
  Kind kind = Kind::Absent;
  int error = 0;          // NVML return code when kind == Error
  double number = 0;      // when kind == Number (hex and decimal integers too)
  std::uint64_t integer = 0;  // exact value when the text is an integer (hex or decimal)
  std::string text;       // the text as written, unit suffix removed

  bool is_number() const { return kind == Kind::Number; }
  bool is_error() const { return kind == Kind::Error; }
  bool is_absent() const { return kind == Kind::Absent; }

  static Value make_number(double v);
  static Value make_error(int code);
  static Value make_text(std::string s);
};

// Parses a displayed value. PROBLEM gets a message for bracketed text that is not an
// NVML error string (the value is then NOT_SUPPORTED).
Value parse_value(std::string_view raw, std::string* problem = nullptr);

// The text to write back into a scenario (numbers as written, errors in brackets).
std::string display_text(const Value& value);

}  // namespace gpuwatch::sim
