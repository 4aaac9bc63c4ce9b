// The expression lexer: numbers with units (85, 10%, 2GiB, 1.5GHz, 5m), names, strings, operators.
#include "alerts/expression_lexer.hpp"

#include <cctype>
#include <cstdlib>
#include <map>

#include "alerts/duration.hpp"

namespace gpuwatch::alerts::expression_syntax {

void fail(std::size_t pos, std::string message) { throw Fail{Expression::ParseError{pos + 1, std::move(message)}}; }

namespace {

// A number with an optional unit: 85, 0.1, 10%, 2GiB, 500MB, 1.5GHz, 30s, 5m, 1h30m.
double number_with_unit(const std::string& run, std::size_t pos, bool& is_duration) {
  std::size_t i = 0;
  while (i < run.size() && (std::isdigit(static_cast<unsigned char>(run[i])) || run[i] == '.')) ++i;
  const std::string digits = run.substr(0, i), unit = run.substr(i);
  char* end = nullptr;
  const double x = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size()) fail(pos, "'" + run + "' is not a number");
  is_duration = false;
  if (unit.empty()) return x;
  if (unit == "%") return x / 100.0;
  static const std::map<std::string, double> kUnits = {
      {"B", 1},          {"KiB", 1024.0},   {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3},       {"MB", 1e6},       {"GB", 1e9},        {"TB", 1e12},          {"W", 1},
      {"kHz", 1e3},      {"MHz", 1e6},      {"GHz", 1e9},       {"C", 1}};
  if (auto it = kUnits.find(unit); it != kUnits.end()) return x * it->second;
  if (auto d = parse_duration(run)) {
    is_duration = true;
    return static_cast<double>(d->count()) / 1000.0;
  }
  fail(pos, "'" + run + "': unknown unit '" + unit +
                "' (numbers take %, B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, W, MHz, GHz, or a duration: 30s, 5m, 1h30m)");
}

}  // namespace

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.pos = i;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '%')) ++j;
      t.kind = Tok::Number;
      t.text = std::string(s.substr(i, j - i));
      t.number = number_with_unit(t.text, i, t.is_duration);
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.')) ++j;
      t.kind = Tok::Ident;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '"' || c == '\'') {
      const std::size_t close = s.find(c, i + 1);
      if (close == std::string_view::npos) fail(i, "unterminated string");
      t.kind = Tok::String;
      t.text = std::string(s.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (c == '(' || c == ')' || c == ',') {
      t.kind = c == '(' ? Tok::LParen : c == ')' ? Tok::RParen : Tok::Comma;
      t.text = std::string(1, c);
      ++i;
    } else {
      static const char* kOps[] = {">=", "<=", "==", "!=", ">", "<", "+", "-", "*", "/"};
      bool found = false;
      for (const char* op : kOps) {
        const std::string_view o(op);
        if (s.substr(i, o.size()) == o) {
          t.kind = Tok::Op;
          t.text = std::string(o);
          i += o.size();
          found = true;
          break;
        }
      }
      if (!found) {
        if (c == '=') fail(i, "'=' is not an operator: compare with '=='");
        if (c == '&' || c == '|') fail(i, std::string("'") + c + "' is not an operator: use 'and', 'or'");
        if (c == '!') fail(i, "'!' is not an operator: use 'not' (or '!=')");
        fail(i, std::string("unexpected character '") + c + "'");
      }
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.pos = s.size();
  out.push_back(end);
  return out;
}

}  // namespace gpuwatch::alerts::expression_syntax
