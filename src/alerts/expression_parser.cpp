// The expression parser: tokens (expression_lexer.cpp) by precedence (or < and < not < comparison
// < + - < * / < unary -) into Expression's flat program, with scope and nesting checks.
#include <algorithm>
#include <cctype>
#include <string>

#include "alerts/expression.hpp"
#include "alerts/expression_lexer.hpp"
#include "alerts/expression_vocabulary.hpp"
#include "core/did_you_mean.hpp"
#include "core/field_table.hpp"
#include "diagnose/kinds.hpp"

namespace gpuwatch::alerts {

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, Scope scope, Expression& out)
      : tokens_(expression_syntax::lex(text)), scope_(scope), out_(out) {}

  void parse() {
    std::uint32_t root = parse_or();
    if (peek().kind != Tok::End) fail(peek().pos, "unexpected '" + peek().text + "' after the expression");
    (void)root;
  }

 private:
  using Tok = expression_syntax::Tok;
  using Token = expression_syntax::Token;
  [[noreturn]] static void fail(std::size_t pos, std::string message) { expression_syntax::fail(pos, std::move(message)); }

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
    for (const auto& c : expression_syntax::kConstants)
      if (t.text == c.name) return emit(Instr{Op::Const, 0, 0, 0, c.value});
    for (const auto& d : expression_syntax::kDerived) {
      if (t.text != d.name) continue;
      if (d.gpu_only) need_gpu_scope(t);
      return emit(Instr{d.op, 0, 0, 0, 0});
    }
    const auto& fields = expression_syntax::numeric_fields();
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
    for (const auto& w : expression_syntax::kWindowFunctions) {
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
    fail(name.pos, "unknown function '" + name.text + "'." + core::did_you_mean(name.text, expression_syntax::function_names()));
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
  } catch (const expression_syntax::Fail& f) {
    return f.error;
  }
  return e;
}

}  // namespace gpuwatch::alerts
