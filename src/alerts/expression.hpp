#pragma once
// The local expression language of alert rules (docs/alerts.md): fields of the field table in
// base units, derived values (stale, age, xid_age(...), finding(...)), windowed functions
// (avg, min, max, rate, increase, trend, predict, share, count), arithmetic, comparisons and
// and/or/not. Parsed once into a flat program (children before parents) that evaluates
// without allocating; windowed functions keep their state per series (WindowSet).
//
// Absent values: arithmetic or a comparison with an absent operand is absent. `a and b` is
// false when either side is false, else absent when either is absent; `a or b` is true when
// either side is true, absent only when both are (a GPU without one of two sensors still
// reads the other); `not absent` is absent.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alerts/window.hpp"
#include "core/field.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::alerts {

enum class Scope : std::uint8_t { Gpu, Node };
const char* to_string(Scope scope);

struct XidSeen {
  std::uint64_t xid = 0;
  std::chrono::system_clock::time_point last;  // when the GPU last reported it
};

// Severity ranks of findings: the values finding("kind") returns and the constants
// info, warning, critical stand for.
inline constexpr double kRankNone = 0, kRankInfo = 1, kRankWarning = 2, kRankCritical = 3;

// What one evaluation reads: one GPU's values (scope gpu) and the node's (both scopes).
struct EvalInput {
  double now_s = 0;  // seconds since the Unix epoch
  // GPU scope
  const core::DeviceSnapshot* device = nullptr;  // nullptr: never sampled
  std::optional<double> age_s;
  bool stale = false;
  std::optional<double> processes;
  const std::vector<XidSeen>* xids = nullptr;
  const double* finding_ranks = nullptr;  // per diagnose::Kind, kRankNone.. kRankCritical
  // node
  std::optional<double> gpus;
  bool driver_up = true;
  std::optional<double> sampler_age_s;
};

enum class Op : std::uint8_t {
  Const, Field, MemoryFreeRatio, Processes, Stale, Age, Lost, XidAge, XidAgeExcept, Finding,
  Gpus, DriverUp, SamplerAge,
  Neg, Not, Abs, Add, Sub, Mul, Div, Gt, Ge, Lt, Le, Eq, Ne, And, Or,
  Window,  // avg/min/max/rate/increase/trend/predict/share/count over `window` of operand a
};

struct Instr {
  Op op = Op::Const;
  std::uint32_t a = 0, b = 0;  // operands: indices of earlier instructions
  std::uint32_t aux = 0;       // Field: FieldId; XidAge*: xid set; Finding: kind; Window: window slot
  double k = 0;                // Const: the value
};

class Expression {
 public:
  // TEXT in SCOPE; an error names the problem and its column (1-based) in TEXT.
  struct ParseError {
    std::size_t column = 1;
    std::string message;
  };
  static std::variant<Expression, ParseError> parse(std::string_view text, Scope scope);

  const std::string& text() const { return text_; }
  std::size_t window_count() const { return windows_.size(); }
  const std::vector<WindowSpec>& windows() const { return windows_; }
  bool uses_xids() const { return uses_xids_; }

  // Evaluates into SCRATCH (resized as needed) with the series' window state; the result
  // (absent, or a number; conditions are 1/0).
  std::optional<double> evaluate(const EvalInput& in, WindowSet& windows, std::vector<std::optional<double>>& scratch) const;
  // The value worth showing after an evaluation ({{ $value }}): a comparison's left side, the
  // side of an and/or that decided it; else the result.
  std::optional<double> shown_value(const std::vector<std::optional<double>>& scratch) const;
  // The Xid that the last xid_age() evaluation matched (for the `xid` label), if any.
  std::optional<std::uint64_t> matched_xid(const EvalInput& in) const;

  const std::vector<Instr>& program() const { return program_; }

 private:
  friend class ExpressionParser;
  std::optional<double> shown(const std::vector<std::optional<double>>& scratch, std::uint32_t i) const;

  std::string text_;
  std::vector<Instr> program_;  // postorder; the last is the root
  std::vector<WindowSpec> windows_;
  std::vector<std::vector<std::uint64_t>> xid_sets_;  // sorted codes
  bool uses_xids_ = false;
};

// Fresh window state for a series of E.
WindowSet make_windows(const Expression& e);

// The names an expression may use, for messages and docs: fields (base units) and derived values.
std::vector<std::string> expression_identifiers(Scope scope);

}  // namespace gpuwatch::alerts
