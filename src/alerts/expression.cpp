#include "alerts/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "alerts/duration.hpp"
#include "core/did_you_mean.hpp"
#include "core/field_table.hpp"
#include "diagnose/kinds.hpp"

namespace gpuwatch::alerts {

const char* to_string(Scope scope) { return scope == Scope::Gpu ? "gpu" : "node"; }

namespace {

// Fields an expression may read: every numeric field of the field table, by query name or alias.
const std::map<std::string, core::FieldId, std::less<>>& numeric_fields() {
  static const auto fields = [] {
    std::map<std::string, core::FieldId, std::less<>> m;
    for (const auto& f : core::field_table()) {
      if (f.display == core::Display::Text) continue;
      m.emplace(std::string(f.name), f.id);
      for (auto alias : f.alias_list()) m.emplace(std::string(alias), f.id);
    }
    return m;
  }();
  return fields;
}

struct Derived {
  std::string_view name;
  Op op;
  bool gpu_only;
};
constexpr Derived kDerived[] = {
    {"memory.free_ratio", Op::MemoryFreeRatio, true},
    {"processes", Op::Processes, true},
    {"stale", Op::Stale, true},
    {"age", Op::Age, true},
    {"lost", Op::Lost, true},
    {"gpus", Op::Gpus, false},
    {"driver_up", Op::DriverUp, false},
    {"sampler_age", Op::SamplerAge, false},
};
struct Constant {
  std::string_view name;
  double value;
};
constexpr Constant kConstants[] = {{"info", kRankInfo}, {"warning", kRankWarning}, {"critical", kRankCritical}};

struct WindowFunction {
  std::string_view name;
  WindowFn fn;
};
constexpr WindowFunction kWindowFunctions[] = {
    {"avg", WindowFn::Avg},       {"min", WindowFn::Min},         {"max", WindowFn::Max},
    {"rate", WindowFn::Rate},     {"increase", WindowFn::Increase}, {"trend", WindowFn::Trend},
    {"predict", WindowFn::Predict}, {"share", WindowFn::Share},   {"count", WindowFn::Count},
};
const std::vector<std::string>& function_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& w : kWindowFunctions) v.emplace_back(w.name);
    for (const char* n : {"abs", "xid_age", "xid_age_except", "finding"}) v.emplace_back(n);
    return v;
  }();
  return names;
}

enum class Tok : std::uint8_t { Number, Ident, String, LParen, RParen, Comma, Op, End };
struct Token {
  Tok kind = Tok::End;
  std::size_t pos = 0;
  std::string text;
  double number = 0;
  bool is_duration = false;
};

using Error = Expression::ParseError;
struct Fail {
  Error error;
};
[[noreturn]] void fail(std::size_t pos, std::string message) { throw Fail{Error{pos + 1, std::move(message)}}; }

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

}  // namespace

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, Scope scope, Expression& out)
      : tokens_(lex(text)), scope_(scope), out_(out) {}

  void parse() {
    std::uint32_t root = parse_or();
    if (peek().kind != Tok::End) fail(peek().pos, "unexpected '" + peek().text + "' after the expression");
    (void)root;
  }

 private:
  const Token& peek() const { return tokens_[i_]; }
  const Token& next() { return tokens_[i_++]; }
  bool is_word(const char* w) const { return peek().kind == Tok::Ident && peek().text == w; }
  bool is_op(const char* o) const { return peek().kind == Tok::Op && peek().text == o; }
  void expect(Tok kind, const char* what) {
    if (peek().kind != kind) {
      fail(peek().pos, std::string("expected ") + what +
                           (peek().kind == Tok::End ? " at the end" : ", found '" + peek().text + "'"));
    }
    ++i_;
  }

  std::uint32_t emit(Instr in) {
    out_.program_.push_back(in);
    return static_cast<std::uint32_t>(out_.program_.size() - 1);
  }
  std::uint32_t binary(Op op, std::uint32_t a, std::uint32_t b) { return emit(Instr{op, a, b, 0, 0}); }

  std::uint32_t parse_or() {
    std::uint32_t a = parse_and();
    while (is_word("or")) {
      ++i_;
      a = binary(Op::Or, a, parse_and());
    }
    return a;
  }
  std::uint32_t parse_and() {
    std::uint32_t a = parse_not();
    while (is_word("and")) {
      ++i_;
      a = binary(Op::And, a, parse_not());
    }
    return a;
  }
  std::uint32_t parse_not() {
    if (is_word("not")) {
      const Deeper deeper(*this);
      ++i_;
      return emit(Instr{Op::Not, parse_not(), 0, 0, 0});
    }
    return parse_cmp();
  }
  std::uint32_t parse_cmp() {
    std::uint32_t a = parse_add();
    static const std::pair<const char*, Op> kCmp[] = {{">", Op::Gt},  {">=", Op::Ge}, {"<", Op::Lt},
                                                      {"<=", Op::Le}, {"==", Op::Eq}, {"!=", Op::Ne}};
    for (const auto& [text, op] : kCmp) {
      if (is_op(text)) {
        ++i_;
        std::uint32_t r = binary(op, a, parse_add());
        for (const auto& c : kCmp)
          if (is_op(c.first)) fail(peek().pos, "comparisons do not chain: join them with 'and'");
        return r;
      }
    }
    return a;
  }
  std::uint32_t parse_add() {
    std::uint32_t a = parse_mul();
    while (is_op("+") || is_op("-")) {
      Op op = next().text == "+" ? Op::Add : Op::Sub;
      a = binary(op, a, parse_mul());
    }
    return a;
  }
  std::uint32_t parse_mul() {
    std::uint32_t a = parse_unary();
    while (is_op("*") || is_op("/")) {
      Op op = next().text == "*" ? Op::Mul : Op::Div;
      a = binary(op, a, parse_unary());
    }
    return a;
  }
  std::uint32_t parse_unary() {
    if (is_op("-")) {
      const Deeper deeper(*this);
      ++i_;
      return emit(Instr{Op::Neg, parse_unary(), 0, 0, 0});
    }
    return parse_primary();
  }

  std::uint32_t parse_primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Number: ++i_; return emit(Instr{Op::Const, 0, 0, 0, t.number});
      case Tok::LParen: {
        const Deeper deeper(*this);
        ++i_;
        std::uint32_t inner = parse_or();
        expect(Tok::RParen, "')'");
        return inner;
      }
      case Tok::Ident: {
        ++i_;
        if (peek().kind == Tok::LParen) return parse_call(t);
        return identifier(t);
      }
      case Tok::End: fail(t.pos, "the expression ends too early: a value is missing");
      default: fail(t.pos, "expected a value, found '" + t.text + "'");
    }
  }

  std::uint32_t identifier(const Token& t) {
    if (t.text == "and" || t.text == "or" || t.text == "not") fail(t.pos, "'" + t.text + "' needs a value before it");
    for (const auto& c : kConstants)
      if (t.text == c.name) return emit(Instr{Op::Const, 0, 0, 0, c.value});
    for (const auto& d : kDerived) {
      if (t.text != d.name) continue;
      if (d.gpu_only) need_gpu_scope(t);
      return emit(Instr{d.op, 0, 0, 0, 0});
    }
    const auto& fields = numeric_fields();
    if (auto it = fields.find(t.text); it != fields.end()) {
      need_gpu_scope(t);
      return emit(Instr{Op::Field, 0, 0, static_cast<std::uint32_t>(it->second), 0});
    }
    if (core::find_field(t.text)) fail(t.pos, "the field '" + t.text + "' is text, not a number");
    fail(t.pos, "unknown field '" + t.text + "'." + core::did_you_mean(t.text, expression_identifiers(scope_)));
  }

  void need_gpu_scope(const Token& t) const {
    if (scope_ != Scope::Gpu) fail(t.pos, "'" + t.text + "' is a per-GPU value: it needs scope: gpu");
  }

  double duration_arg(const char* fn) {
    const Token& t = peek();
    if (t.kind != Tok::Number || !t.is_duration)
      fail(t.pos, std::string(fn) + "(): expected a duration (30s, 5m, 1h), found '" + t.text + "'");
    if (t.number <= 0) fail(t.pos, std::string(fn) + "(): the window must be longer than 0s");
    ++i_;
    return t.number;
  }

  std::uint32_t parse_call(const Token& name) {
    const Deeper deeper(*this);
    ++i_;  // (
    for (const auto& w : kWindowFunctions) {
      if (name.text != w.name) continue;
      std::uint32_t arg = parse_or();
      expect(Tok::Comma, "',' and a window (5m)");
      WindowSpec spec{w.fn, duration_arg(name.text.c_str()), 0};
      if (w.fn == WindowFn::Predict) {
        expect(Tok::Comma, "',' and how far ahead (1h)");
        spec.horizon_s = duration_arg("predict");
      }
      expect(Tok::RParen, "')'");
      out_.windows_.push_back(spec);
      return emit(Instr{Op::Window, arg, 0, static_cast<std::uint32_t>(out_.windows_.size() - 1), 0});
    }
    if (name.text == "abs") {
      std::uint32_t arg = parse_or();
      expect(Tok::RParen, "')'");
      return emit(Instr{Op::Abs, arg, 0, 0, 0});
    }
    if (name.text == "xid_age" || name.text == "xid_age_except") {
      need_gpu_scope(name);
      std::vector<std::uint64_t> codes;
      if (peek().kind == Tok::String) {
        const Token& s = next();
        codes = xid_codes(s);
      } else if (name.text == "xid_age_except" || peek().kind != Tok::RParen) {
        fail(peek().pos, name.text + "(): expected the Xid codes as a string, e.g. \"48|62|64\"");
      }
      expect(Tok::RParen, "')'");
      std::sort(codes.begin(), codes.end());
      out_.xid_sets_.push_back(std::move(codes));
      out_.uses_xids_ = true;
      const Op op = name.text == "xid_age" && !out_.xid_sets_.back().empty() ? Op::XidAge : Op::XidAgeExcept;
      return emit(Instr{op, 0, 0, static_cast<std::uint32_t>(out_.xid_sets_.size() - 1), 0});
    }
    if (name.text == "finding") {
      need_gpu_scope(name);
      if (peek().kind != Tok::String) fail(peek().pos, "finding(): expected a finding kind as a string, e.g. \"input_starved\"");
      const Token& s = next();
      std::vector<std::string> kinds;
      for (const auto& k : diagnose::kind_table()) {
        if (k.id == s.text) {
          expect(Tok::RParen, "')'");
          return emit(Instr{Op::Finding, 0, 0, static_cast<std::uint32_t>(k.kind), 0});
        }
        kinds.emplace_back(k.id);
      }
      fail(s.pos + 1, "finding(): unknown kind '" + s.text + "'." + core::did_you_mean(s.text, kinds) +
                          " (docs/diagnose.md lists the kinds)");
    }
    fail(name.pos, "unknown function '" + name.text + "'." + core::did_you_mean(name.text, function_names()));
  }

  static std::vector<std::uint64_t> xid_codes(const Token& s) {
    std::vector<std::uint64_t> codes;
    std::size_t i = 0;
    const std::string& t = s.text;
    while (i < t.size()) {
      std::size_t j = i;
      while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
      if (j == i || j - i > 6) fail(s.pos + 1 + i, "Xid codes are numbers separated by '|', e.g. \"48|62|64\"");
      codes.push_back(std::stoull(t.substr(i, j - i)));
      if (j < t.size() && t[j] != '|') fail(s.pos + 1 + j, "Xid codes are numbers separated by '|', e.g. \"48|62|64\"");
      i = j + 1;
    }
    return codes;
  }

  std::vector<Token> tokens_;
  // Nesting (parentheses, calls, 'not', unary '-'): the parser recurses once per level, so a
  // bound keeps a 40 KB "((((..." an error, not a stack overflow.
  static constexpr std::size_t kMaxDepth = 100;
  struct Deeper {
    explicit Deeper(ExpressionParser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth)
        fail(p.peek().pos, "the expression nests too deeply (more than " + std::to_string(kMaxDepth) +
                               " levels of parentheses, calls, 'not' or '-')");
    }
    ~Deeper() { --p.depth_; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;
    ExpressionParser& p;
  };

  std::size_t i_ = 0;
  std::size_t depth_ = 0;
  Scope scope_;
  Expression& out_;
};

std::variant<Expression, Expression::ParseError> Expression::parse(std::string_view text, Scope scope) {
  Expression e;
  e.text_ = std::string(text);
  try {
    ExpressionParser(text, scope, e).parse();
  } catch (const Fail& f) {
    return f.error;
  }
  return e;
}

namespace {

bool truthy(const std::optional<double>& v) { return v && *v != 0; }
bool falsy(const std::optional<double>& v) { return v && *v == 0; }

double latest_xid(const std::vector<XidSeen>& xids, const std::vector<std::uint64_t>& set, bool except,
                  std::uint64_t* which) {
  double latest = -1;
  for (const auto& x : xids) {
    const bool in = std::binary_search(set.begin(), set.end(), x.xid);
    if (in == except) continue;
    const double t = std::chrono::duration<double>(x.last.time_since_epoch()).count();
    if (t > latest) {
      latest = t;
      if (which) *which = x.xid;
    }
  }
  return latest;
}

}  // namespace

std::optional<double> Expression::evaluate(const EvalInput& in, WindowSet& windows,
                                           std::vector<std::optional<double>>& v) const {
  v.resize(program_.size());
  const bool device_ok = in.device && in.device->state == core::DeviceState::Ok;
  for (std::size_t i = 0; i < program_.size(); ++i) {
    const Instr& p = program_[i];
    std::optional<double> r;
    const auto& a = v[p.a];
    const auto& b = v[p.b];
    switch (p.op) {
      case Op::Const: r = p.k; break;
      case Op::Field:
        if (device_ok) r = in.device->get(static_cast<core::FieldId>(p.aux)).as_double();
        break;
      case Op::MemoryFreeRatio:
        if (device_ok) {
          auto f = in.device->get(core::FieldId::MemoryFree).as_double();
          auto t = in.device->get(core::FieldId::MemoryTotal).as_double();
          if (f && t && *t > 0) r = *f / *t;
        }
        break;
      case Op::Processes: r = in.processes; break;
      case Op::Stale: r = in.stale ? 1.0 : 0.0; break;
      case Op::Age: r = in.age_s; break;
      case Op::Lost: r = in.device && in.device->state == core::DeviceState::Lost ? 1.0 : 0.0; break;
      case Op::XidAge:
      case Op::XidAgeExcept:
        if (in.xids) {
          const double t = latest_xid(*in.xids, xid_sets_[p.aux], p.op == Op::XidAgeExcept, nullptr);
          if (t >= 0) r = std::max(0.0, in.now_s - t);
        }
        break;
      case Op::Finding: r = in.finding_ranks ? in.finding_ranks[p.aux] : kRankNone; break;
      case Op::Gpus: r = in.gpus; break;
      case Op::DriverUp: r = in.driver_up ? 1.0 : 0.0; break;
      case Op::SamplerAge: r = in.sampler_age_s; break;
      case Op::Neg: if (a) r = -*a; break;
      case Op::Abs: if (a) r = std::fabs(*a); break;
      case Op::Not: if (a) r = *a == 0 ? 1.0 : 0.0; break;
      case Op::Add: if (a && b) r = *a + *b; break;
      case Op::Sub: if (a && b) r = *a - *b; break;
      case Op::Mul: if (a && b) r = *a * *b; break;
      case Op::Div: if (a && b && *b != 0) r = *a / *b; break;
      case Op::Gt: if (a && b) r = *a > *b ? 1.0 : 0.0; break;
      case Op::Ge: if (a && b) r = *a >= *b ? 1.0 : 0.0; break;
      case Op::Lt: if (a && b) r = *a < *b ? 1.0 : 0.0; break;
      case Op::Le: if (a && b) r = *a <= *b ? 1.0 : 0.0; break;
      case Op::Eq: if (a && b) r = *a == *b ? 1.0 : 0.0; break;
      case Op::Ne: if (a && b) r = *a != *b ? 1.0 : 0.0; break;
      case Op::And:
        if (falsy(a) || falsy(b)) r = 0.0;
        else if (a && b) r = 1.0;
        break;
      case Op::Or:  // absent only when both sides are: `a or b` holds when either does
        if (truthy(a) || truthy(b)) r = 1.0;
        else if (a || b) r = 0.0;
        break;
      case Op::Window: {
        Window& w = windows[p.aux];
        std::optional<double> x = a;
        // share(cond, w): the window holds 1 where the condition held, 0 where it did not.
        if (windows_[p.aux].fn == WindowFn::Share && x) x = *x != 0 ? 1.0 : 0.0;
        w.push(in.now_s, x);
        r = w.value(in.now_s);
        break;
      }
    }
    v[i] = r;
  }
  return program_.empty() ? std::nullopt : v.back();
}

std::optional<double> Expression::shown(const std::vector<std::optional<double>>& v, std::uint32_t i) const {
  const Instr& p = program_[i];
  switch (p.op) {
    case Op::Gt: case Op::Ge: case Op::Lt: case Op::Le: case Op::Eq: case Op::Ne: return v[p.a];
    case Op::And: return shown(v, p.a);
    case Op::Or: return truthy(v[p.a]) ? shown(v, p.a) : shown(v, p.b);
    default: return v[i];
  }
}

std::optional<double> Expression::shown_value(const std::vector<std::optional<double>>& scratch) const {
  if (program_.empty() || scratch.size() != program_.size()) return std::nullopt;
  return shown(scratch, static_cast<std::uint32_t>(program_.size() - 1));
}

std::optional<std::uint64_t> Expression::matched_xid(const EvalInput& in) const {
  if (!in.xids) return std::nullopt;
  for (const auto& p : program_) {
    if (p.op != Op::XidAge && p.op != Op::XidAgeExcept) continue;
    std::uint64_t which = 0;
    if (latest_xid(*in.xids, xid_sets_[p.aux], p.op == Op::XidAgeExcept, &which) >= 0) return which;
    return std::nullopt;
  }
  return std::nullopt;
}

WindowSet make_windows(const Expression& e) {
  WindowSet w;
  w.reserve(e.windows().size());
  for (const auto& spec : e.windows()) w.emplace_back(spec);
  return w;
}

std::vector<std::string> expression_identifiers(Scope scope) {
  std::vector<std::string> names;
  for (const auto& d : kDerived)
    if (scope == Scope::Gpu || !d.gpu_only) names.emplace_back(d.name);
  for (const auto& c : kConstants) names.emplace_back(c.name);
  if (scope == Scope::Gpu)
    for (const auto& [name, id] : numeric_fields()) names.push_back(name);
  return names;
}

}  // namespace gpuwatch::alerts
