#pragma once
// Writing one metric family of the text format, with its label and number spelling (internal
// to src/exporter: the encoder and every family file use it; it uses none of them).
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>

#include "core/field.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::exporter {

// Label value escaping of the text format: backslash, double quote and newline, after controls and
// invalid UTF-8 are shown visibly (core::terminal_lines: "\x1b", "\xff"; a LF stays \n; issue 31).
std::string escape_label_value(std::string_view value);
// A double as a sample value: 15 significant digits, NaN, +Inf, -Inf.
std::string format_double(double v);
// A sample value: integers exactly, doubles as format_double.
std::string format_sample_value(const core::FieldValue& value);

inline std::string escape_help(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Writes one family: HELP and TYPE lines come with the first series, so a family
// with no series at all (nothing supported) leaves no trace.
class Family {
 public:
  Family(std::string& out, std::string_view name, std::string_view type, std::string_view help)
      : out_(out), name_(name), type_(type), help_(help) {}

  // LABELS is the already formatted label list without braces ("gpu=\"0\",uuid=\"...\"").
  void sample(std::string_view labels, std::string_view value) {
    if (!header_written_) {
      fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name_, escape_help(help_), name_, type_);
      header_written_ = true;
    }
    out_ += name_;
    if (!labels.empty()) {
      out_ += '{';
      out_ += labels;
      out_ += '}';
    }
    out_ += ' ';
    out_ += value;
    out_ += '\n';
  }

 private:
  std::string& out_;
  std::string_view name_, type_, help_;
  bool header_written_ = false;
};

inline void add_label(std::string& labels, std::string_view name, std::string_view value) {
  if (!labels.empty()) labels += ',';
  labels += name;
  labels += "=\"";
  labels += escape_label_value(value);
  labels += '"';
}

// A string field's text for a label; empty when absent.
inline std::string label_text_of(const core::DeviceSnapshot& device, core::FieldId id) {
  auto text = device.get(id).as_string();
  return text ? *text : std::string();
}

}  // namespace gpuwatch::exporter
