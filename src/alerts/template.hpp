#pragma once
// Annotation templates: the subset of Prometheus' Go templates that alert annotations use,
// so one text works in both engines:
//   {{ $value }}  {{ $labels.gpu }}  {{ $labels.uuid }}  {{ $labels.host }}  {{ $labels.instance }}
//   {{ $process }} (local engine only: the commands on the GPU)
// each optionally through a function, as a pipe or a call:
//   {{ $value | humanize }}  {{ $value | humanizePercentage }}  {{ $value | humanizeDuration }}
//   {{ $value | printf "%.1f" }}  {{ printf "%.1f" $value }}  {{ humanize $value }}
// Parsed once (syntax errors at load time); rendering cannot fail.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alerts/alert.hpp"

namespace gpuwatch::alerts {

struct TemplateData {
  std::optional<double> value;
  const Labels* labels = nullptr;
  std::string_view process;  // the commands on the GPU, ", "-separated
};

class Template {
 public:
  struct ParseError {
    std::size_t column = 1;  // 1-based, in the template text
    std::string message;
  };
  static std::variant<Template, ParseError> parse(std::string_view text);

  std::string render(const TemplateData& data) const;
  bool uses_process() const { return uses_process_; }
  const std::string& text() const { return text_; }

 private:
  enum class Var : std::uint8_t { Value, Label, Process };
  enum class Fn : std::uint8_t { None, Humanize, HumanizePercentage, HumanizeDuration, Printf };
  struct Part {
    std::string literal;  // when not an action
    bool action = false;
    Var var = Var::Value;
    std::string label;   // Var::Label
    Fn fn = Fn::None;
    std::string format;  // Fn::Printf
  };
  static Part literal(std::string_view text);
  std::string text_;
  std::vector<Part> parts_;
  bool uses_process_ = false;
};

// Prometheus' template functions (Go's formatting), exposed for tests.
std::string format_go_float(double v);         // {{ $value }}: 91, 0.05, 1e+06
std::string humanize(double v);                // 1234 -> 1.234k, 0.012 -> 12m
std::string humanize_percentage(double ratio);  // 0.05 -> 5%
std::string humanize_duration(double seconds);  // 60 -> 1m 0s, 3725 -> 1h 2m 5s, 0.5 -> 500ms

}  // namespace gpuwatch::alerts
