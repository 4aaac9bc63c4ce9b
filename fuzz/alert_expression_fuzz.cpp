// libFuzzer target: the expression language of alert rules (alerts/expression.cpp), parsed
// from the input bytes in both scopes; an accepted expression is then evaluated over a few
// ticks (absent and present inputs, Xids, findings), through its windowed functions.
// Promises checked beyond "no crash": an error's column lies within the text; a program is
// in postorder (operands before their instruction), with one window per windowed call.
#include <chrono>
#include <limits>
#include <vector>

#include "alerts/expression.hpp"
#include "diagnose/kinds.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using namespace gpuwatch;

void check_program(const alerts::Expression& e) {
  const auto& program = e.program();
  GPUWATCH_FUZZ_CHECK(!program.empty(), "an expression has an instruction");
  for (std::size_t i = 0; i < program.size(); ++i) {
    const auto& in = program[i];
    const bool unary = in.op == alerts::Op::Neg || in.op == alerts::Op::Not || in.op == alerts::Op::Abs ||
                       in.op == alerts::Op::Window;
    const bool binary = in.op >= alerts::Op::Add && in.op <= alerts::Op::Or;
    if (unary || binary) GPUWATCH_FUZZ_CHECK(in.a < i, "an operand comes before its instruction");
    if (binary) GPUWATCH_FUZZ_CHECK(in.b < i, "an operand comes before its instruction");
    if (in.op == alerts::Op::Window) GPUWATCH_FUZZ_CHECK(in.aux < e.window_count(), "a window per windowed call");
    if (in.op == alerts::Op::Finding) GPUWATCH_FUZZ_CHECK(in.aux < diagnose::kKindCount, "a known finding kind");
  }
}

void evaluate(const alerts::Expression& e) {
  auto windows = alerts::make_windows(e);
  std::vector<std::optional<double>> scratch;
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'796'040'000));
  const std::vector<alerts::XidSeen> xids = {{48, now - std::chrono::seconds(30)}, {79, now - std::chrono::hours(2)}};
  std::vector<double> ranks(diagnose::kKindCount, alerts::kRankNone);
  ranks[0] = alerts::kRankWarning;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::optional<double> samples[] = {std::nullopt, 3.0, 0.0, nan, -1e300, 1e300, 7.0};
  double t = 1'796'040'000;
  for (const auto& sample : samples) {
    alerts::EvalInput in;
    in.now_s = t;
    in.age_s = sample;
    in.processes = sample;
    in.stale = !sample;
    in.xids = &xids;
    in.finding_ranks = ranks.data();
    in.gpus = sample;
    in.sampler_age_s = sample;
    (void)e.evaluate(in, windows, scratch);
    (void)e.shown_value(scratch);
    (void)e.matched_xid(in);
    t += 15;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  for (auto scope : {alerts::Scope::Gpu, alerts::Scope::Node}) {
    auto parsed = alerts::Expression::parse(text, scope);
    if (const auto* error = std::get_if<alerts::Expression::ParseError>(&parsed)) {
      GPUWATCH_FUZZ_CHECK(error->column >= 1 && error->column <= text.size() + 1, "an error's column is in the text");
      GPUWATCH_FUZZ_CHECK(!error->message.empty(), "an error says what is wrong");
      continue;
    }
    const auto& e = std::get<alerts::Expression>(parsed);
    check_program(e);
    evaluate(e);
  }
  return 0;
}
