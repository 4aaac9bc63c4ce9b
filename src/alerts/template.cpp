#include "alerts/template.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "core/did_you_mean.hpp"

namespace gpuwatch::alerts {
namespace {

std::string c_format(const char* fmt, double v) {
  char buf[64];
  if (std::snprintf(buf, sizeof buf, fmt, v) < 0) return "";
  return buf;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// Go's %v for a float64 (what Prometheus prints for {{ $value }}): the shortest digits that
// read back the same, in %e form when the exponent is < -4 or >= 6 (strconv's 'g' with the
// shortest precision): 91, 0.05, 123456, 1.234567e+06.
std::string format_go_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char sci[64];
  auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  std::string s(sci, res.ptr);  // d.ddde±XX
  const auto e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  if (exp < -4 || exp >= 6) {
    // Go writes at least two exponent digits: 1e+06, 1.5e-05
    std::string mant = s.substr(0, e);
    char sign = exp < 0 ? '-' : '+';
    int a = std::abs(exp);
    return mant + "e" + sign + (a < 10 ? "0" : "") + std::to_string(a);
  }
  char fixed[400];
  res = std::to_chars(fixed, fixed + sizeof fixed, v, std::chars_format::fixed);
  return std::string(fixed, res.ptr);
}

std::string humanize(double v) {
  if (v == 0 || std::isnan(v) || std::isinf(v)) return c_format("%.4g", v);
  if (std::fabs(v) >= 1) {
    const char* prefix = "";
    for (const char* p : {"k", "M", "G", "T", "P", "E", "Z", "Y"}) {
      if (std::fabs(v) < 1000) break;
      prefix = p;
      v /= 1000;
    }
    return c_format("%.4g", v) + prefix;
  }
  const char* prefix = "";
  for (const char* p : {"m", "u", "n", "p", "f", "a", "z", "y"}) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return c_format("%.4g", v) + prefix;
}

std::string humanize_percentage(double ratio) { return c_format("%.4g", ratio * 100) + "%"; }

std::string humanize_duration(double v) {
  if (std::isnan(v) || std::isinf(v)) return c_format("%.4g", v);
  if (std::fabs(v) >= 1) {
    std::string sign;
    if (v < 0) {
      sign = "-";
      v = -v;
    }
    // Beyond what whole seconds in a long long hold (~292 billion years): seconds as a number.
    if (v >= 9.2e18) return sign + c_format("%.4g", v) + "s";
    const auto d = static_cast<long long>(v);
    const long long days = d / 86400, hours = d / 3600 % 24, minutes = d / 60 % 60, seconds = d % 60;
    char buf[96];
    if (days != 0) std::snprintf(buf, sizeof buf, "%s%lldd %lldh %lldm %llds", sign.c_str(), days, hours, minutes, seconds);
    else if (hours != 0) std::snprintf(buf, sizeof buf, "%s%lldh %lldm %llds", sign.c_str(), hours, minutes, seconds);
    else if (minutes != 0) std::snprintf(buf, sizeof buf, "%s%lldm %llds", sign.c_str(), minutes, seconds);
    else return sign + c_format("%.4g", v) + "s";
    return buf;
  }
  if (v == 0) return c_format("%.4g", v) + "s";
  const char* prefix = "";
  for (const char* p : {"m", "u", "n", "p", "f", "a", "z", "y"}) {
    if (std::fabs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return c_format("%.4g", v) + prefix + "s";
}

Template::Part Template::literal(std::string_view text) {
  Part p;
  p.literal = std::string(text);
  return p;
}

std::variant<Template, Template::ParseError> Template::parse(std::string_view text) {
  Template t;
  t.text_ = std::string(text);
  auto error = [](std::size_t pos, std::string message) { return ParseError{pos + 1, std::move(message)}; };
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find("{{", i);
    if (open == std::string_view::npos) {
      t.parts_.push_back(literal(text.substr(i)));
      break;
    }
    if (open > i) t.parts_.push_back(literal(text.substr(i, open - i)));
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) return error(open, "'{{' without its '}}'");
    std::string_view body = trim(text.substr(open + 2, close - open - 2));
    Part part;
    part.action = true;
    // Words: a function name, a "quoted" printf format, a $variable, and '|'.
    std::vector<std::string> words;
    std::size_t j = 0;
    while (j < body.size()) {
      if (body[j] == ' ' || body[j] == '\t') {
        ++j;
        continue;
      }
      if (body[j] == '"') {
        const std::size_t q = body.find('"', j + 1);
        if (q == std::string_view::npos) return error(open + 2, "unterminated string in '{{" + std::string(body) + "}}'");
        words.emplace_back(body.substr(j, q - j + 1));
        j = q + 1;
        continue;
      }
      std::size_t k = j;
      while (k < body.size() && body[k] != ' ' && body[k] != '\t' && body[k] != '"') ++k;
      words.emplace_back(body.substr(j, k - j));
      j = k;
    }
    const std::string where = "in '{{ " + std::string(body) + " }}'";
    // Normalise "FN [ARG] $var" to "$var | FN [ARG]".
    if (!words.empty() && words[0][0] != '$' && words[0] != "|") {
      std::vector<std::string> w = {words.back(), "|"};
      w.insert(w.end(), words.begin(), words.end() - 1);
      words = std::move(w);
    }
    if (words.empty()) return error(open, "empty '{{ }}'");
    const std::string& var = words[0];
    if (var == "$value") part.var = Var::Value;
    else if (var == "$process") {
      part.var = Var::Process;
      t.uses_process_ = true;
    } else if (var.rfind("$labels.", 0) == 0 && var.size() > 8) {
      part.var = Var::Label;
      part.label = var.substr(8);
    } else {
      return error(open, "unknown variable '" + var + "' " + where +
                             " (use $value, $labels.NAME or $process)" +
                             core::did_you_mean(var, {"$value", "$process", "$labels"}));
    }
    if (words.size() > 1) {
      if (words[1] != "|" || words.size() < 3) return error(open, "expected '| FUNCTION' " + where);
      const std::string& fn = words[2];
      std::size_t expected = 3;
      if (fn == "humanize") part.fn = Fn::Humanize;
      else if (fn == "humanizePercentage") part.fn = Fn::HumanizePercentage;
      else if (fn == "humanizeDuration") part.fn = Fn::HumanizeDuration;
      else if (fn == "raw") {
        part.fn = Fn::Raw;  // the rule's explicit opt-in to unencoded text in chats (issue 31)
        t.uses_raw_ = true;
      }
      else if (fn == "printf") {
        part.fn = Fn::Printf;
        expected = 4;
        // Width and precision of at most two digits: "%2147483648f" fails in snprintf, and
        // "%999999999f" takes seconds to pad into a 128-byte buffer.
        static const std::regex kFormat(R"re("([^%]|%%)*%[-+ 0#]?[0-9]{0,2}(\.[0-9]{1,2})?[feEgG]([^%]|%%)*")re");
        if (words.size() < 4 || !std::regex_match(words[3], kFormat))
          return error(open, "printf needs a quoted format with one number, e.g. \"%.1f\", " + where);
        part.format = words[3].substr(1, words[3].size() - 2);
      } else {
        return error(open, "unknown function '" + fn + "' " + where +
                               core::did_you_mean(fn, {"humanize", "humanizePercentage", "humanizeDuration", "printf", "raw"}));
      }
      if (words.size() != expected) return error(open, "unexpected '" + words[expected] + "' " + where);
    }
    t.parts_.push_back(std::move(part));
    i = close + 2;
  }
  return t;
}

std::string Template::render_part(const Part& p, const TemplateData& data) const {
  if (!p.action) return p.literal;
  std::optional<double> number;
  std::string text;
  bool have = true;
  switch (p.var) {
    case Var::Value:
      number = data.value;
      have = number.has_value();
      break;
    case Var::Process: text = std::string(data.process); break;
    case Var::Label: {
      const auto it = data.labels ? data.labels->find(p.label) : Labels::const_iterator{};
      have = data.labels && it != data.labels->end();
      if (have) {
        text = it->second;
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size()) number = x;
      }
      break;
    }
  }
  if (!have) return "<no value>";
  if (p.fn == Fn::None || p.fn == Fn::Raw || !number) {
    return number && p.var == Var::Value ? format_go_float(*number) : text;
  }
  switch (p.fn) {
    case Fn::Humanize: return humanize(*number);
    case Fn::HumanizePercentage: return humanize_percentage(*number);
    case Fn::HumanizeDuration: return humanize_duration(*number);
    case Fn::Printf: {
      char buf[128];
      if (std::snprintf(buf, sizeof buf, p.format.c_str(), *number) >= 0) return buf;
      return "";
    }
    case Fn::None:
    case Fn::Raw: break;
  }
  return "";
}

std::string Template::render(const TemplateData& data) const {
  std::string out;
  for (const Part& p : parts_) out += render_part(p, data);
  return out;
}

std::vector<TextSpan> Template::render_spans(const TemplateData& data) const {
  std::vector<TextSpan> spans;
  for (const Part& p : parts_) {
    const bool raw = !p.action || p.fn == Fn::Raw;
    std::string text = render_part(p, data);
    if (text.empty()) continue;
    if (!spans.empty() && spans.back().raw == raw) spans.back().text += text;
    else spans.push_back({std::move(text), raw});
  }
  return spans;
}

}  // namespace gpuwatch::alerts
