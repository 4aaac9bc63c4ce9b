#pragma once
// Annotation templates: the subset of Prometheus' Go templates that alert annotations use,
// so one text works in both engines:
//   {{ $value }}  {{ $labels.gpu }}  {{ $labels.uuid }}  {{ $labels.host }}  {{ $labels.instance }}
//   {{ $process }} (local engine only: the commands on the GPU)
// each optionally through a function, as a pipe or a call:
//   {{ $value | humanize }}  {{ $value | humanizePercentage }}  {{ $value | humanizeDuration }}
//   {{ $value | printf "%.1f" }}  {{ printf "%.1f" $value }}  {{ humanize $value }}
// Parsed once (syntax errors at load time); rendering cannot fail.
//
// Output encoding (issue 31): the notification channels encode an annotation for their sink
// (Slack mrkdwn, Markdown, one plain line: core/sink_text.hpp), values and rule text alike. A
// rule that wants raw text says so per value, as a pipe or a call:
//   {{ $labels.runbook | raw }}  {{ raw $labels.runbook }}
// Then that annotation goes to the chats as written (the rule's own text and the `| raw` values
// unescaped, e.g. a Slack link <https://runbook|runbook>), every other value in it still encoded.
// `raw` changes nothing in the annotation's text itself (JSON, webhook, history, terminal).
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
  // The same text in pieces: the rule's literal text and `| raw` values marked raw, the other
  // values not (what a channel encodes when the template uses raw).
  std::vector<TextSpan> render_spans(const TemplateData& data) const;
  bool uses_process() const { return uses_process_; }
  bool uses_raw() const { return uses_raw_; }
  const std::string& text() const { return text_; }

 private:
  enum class Var : std::uint8_t { Value, Label, Process };
  enum class Fn : std::uint8_t { None, Humanize, HumanizePercentage, HumanizeDuration, Printf, Raw };
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
  bool uses_raw_ = false;
  std::string render_part(const Part& part, const TemplateData& data) const;
};

// Prometheus' template functions (Go's formatting), exposed for tests.
std::string format_go_float(double v);         // {{ $value }}: 91, 0.05, 1e+06
std::string humanize(double v);                // 1234 -> 1.234k, 0.012 -> 12m
std::string humanize_percentage(double ratio);  // 0.05 -> 5%
std::string humanize_duration(double seconds);  // 60 -> 1m 0s, 3725 -> 1h 2m 5s, 0.5 -> 500ms

}  // namespace gpuwatch::alerts
