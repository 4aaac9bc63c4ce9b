#include "exporter/text_family.hpp"

#include <cmath>
#include <type_traits>
#include <variant>

#include "core/sink_text.hpp"

namespace gpuwatch::exporter {

std::string format_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // 15 significant digits: exact for every value NVML produces, and no binary noise
  // (41 % / 100 prints 0.41, not 0.41000000000000003).
  return fmt::format("{:.15g}", v);
}

std::string escape_label_value(std::string_view given) {
  // A GPU name or process command holds what its source chose: controls (but LF, escaped below) and
  // bytes that are not UTF-8 shown visibly first (issue 31), so a scrape stays valid UTF-8 and `curl /metrics` on a
  // terminal runs no escape sequence; then the text format's own escapes.
  const std::string shown = core::needs_terminal_encoding(given) ? core::terminal_lines(given) : std::string();
  const std::string_view value = shown.empty() ? given : std::string_view(shown);
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string format_sample_value(const core::FieldValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) return v ? "1" : "0";
        else if constexpr (std::is_same_v<T, double>) return format_double(v);
        else if constexpr (std::is_same_v<T, std::string>) return "NaN";  // never a sample (callers skip strings)
        else return std::to_string(v);
      },
      value);
}

}  // namespace gpuwatch::exporter
