#include "doctor/render.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/sink_text.hpp"

namespace gpuwatch::doctor {

namespace {

constexpr std::size_t kIndent = 10;  // " PROBLEM  " and the text under it

std::string label_of(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "OK";
    case Verdict::Warning: return "WARNING";
    case Verdict::Problem: return "PROBLEM";
    case Verdict::Skipped: return "SKIPPED";
  }
  return "";
}

// Word-wraps TEXT (already terminal-encoded: one line, no control byte) into lines of WIDTH,
// each but the first prefixed with INDENT spaces; FIRST is the first line's prefix.
void wrap(std::string& out, const std::string& first, const std::string& text, std::size_t width) {
  const std::string indent(kIndent, ' ');
  std::string line = first;
  std::size_t start = 0;
  bool line_has_word = false;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    while (line.size() + (line_has_word ? 1 : 0) + word.size() > width) {
      if (line_has_word) {
        out += line + "\n";
        line = indent;
        line_has_word = false;
        continue;
      }
      const std::size_t room = width > line.size() ? width - line.size() : 1;  // a word wider than a line
      out += line + word.substr(0, room) + "\n";
      word = word.substr(room);
      line = indent;
    }
    line += (line_has_word ? " " : "") + word;
    line_has_word = true;
  }
  if (line_has_word || line != indent) out += line + "\n";
}

}  // namespace

std::string render_text(const DoctorReport& report, std::size_t width) {
  std::string out;
  wrap(out, "", "gpuwatch doctor: " + core::terminal_text(report.summary), width);
  const auto& checks = report.checks;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check& c = checks[i];
    out += "\n";
    // Skipped checks in a row for one reason ("NVML is unavailable") are one entry.
    std::size_t run = i;
    while (c.verdict == Verdict::Skipped && c.fix.empty() && run + 1 < checks.size() &&
           checks[run + 1].verdict == Verdict::Skipped && checks[run + 1].evidence == c.evidence && checks[run + 1].fix.empty())
      ++run;
    if (run > i) {
      std::string ids;
      for (std::size_t k = i; k <= run; ++k) ids += (k == i ? "" : ", ") + checks[k].id;
      wrap(out, fmt::format(" {:<8} ", label_of(c.verdict)), ids, width);
      wrap(out, std::string(kIndent, ' '), core::terminal_text(c.evidence), width);
      i = run;
      continue;
    }
    wrap(out, fmt::format(" {:<8} ", label_of(c.verdict)), core::terminal_text(c.title) + " [" + c.id + "]", width);
    wrap(out, std::string(kIndent, ' '), core::terminal_text(c.evidence), width);
    if (!c.fix.empty()) wrap(out, std::string(kIndent, ' '), "Fix: " + core::terminal_text(c.fix), width);
  }
  return out;
}

std::string render_json(const DoctorReport& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : report.checks) {
    checks.push_back({{"id", c.id},
                      {"title", c.title},
                      {"verdict", std::string(verdict_name(c.verdict))},
                      {"evidence", c.evidence},
                      {"fix", c.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.fix)},
                      {"gpus", c.gpus}});
  }
  nlohmann::json doc = {{"summary", report.summary}, {"exit_code", report.exit_code}, {"checks", checks}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpuwatch::doctor
