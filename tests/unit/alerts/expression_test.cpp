#include "alerts/expression.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "diagnose/kinds.hpp"

namespace gpuwatch::alerts {
namespace expression_test {  // this test file's helpers (unity builds: no clash with another file's)

Expression parse(const std::string& text, Scope scope = Scope::Gpu) {
  auto p = Expression::parse(text, scope);
  if (auto* e = std::get_if<Expression::ParseError>(&p)) throw std::runtime_error(e->message);
  return std::get<Expression>(std::move(p));
}

std::string error_of(const std::string& text, Scope scope = Scope::Gpu) {
  auto p = Expression::parse(text, scope);
  auto* e = std::get_if<Expression::ParseError>(&p);
  return e ? std::to_string(e->column) + ": " + e->message : "";
}

core::DeviceSnapshot device(std::optional<double> temp, std::optional<double> used = 40e9, double total = 80e9) {
  core::DeviceSnapshot d;
  if (temp) d.get(core::FieldId::TemperatureGpu) = core::FieldReading::of(*temp);
  else d.get(core::FieldId::TemperatureGpu) = core::FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  if (used) d.get(core::FieldId::MemoryUsed) = core::FieldReading::of(*used);
  d.get(core::FieldId::MemoryTotal) = core::FieldReading::of(total);
  if (used) d.get(core::FieldId::MemoryFree) = core::FieldReading::of(total - *used);
  d.get(core::FieldId::ClocksEventReasonsHwThermalSlowdown) = core::FieldReading::of(true);
  d.get(core::FieldId::EccErrorsUncorrectedVolatileTotal) = core::FieldReading::of(std::uint64_t{7});
  return d;
}

// Evaluates E once on D at time T (fresh windows unless W is given).
std::optional<double> eval(const Expression& e, const core::DeviceSnapshot* d, double t = 1000, WindowSet* w = nullptr,
                           EvalInput extra = {}) {
  WindowSet fresh = make_windows(e);
  std::vector<std::optional<double>> scratch;
  extra.now_s = t;
  extra.device = d;
  return e.evaluate(extra, w ? *w : fresh, scratch);
}

TEST(AlertsExpression, FieldsInBaseUnitsArithmeticAndComparisons) {
  auto d = device(87);
  EXPECT_EQ(eval(parse("temperature.gpu > 85"), &d), 1.0);
  EXPECT_EQ(eval(parse("temperature.gpu > 90"), &d), 0.0);
  EXPECT_EQ(eval(parse("temperature.gpu + 3 * 2 - 1"), &d), 92.0);
  EXPECT_EQ(eval(parse("(temperature.gpu - 7) / 10"), &d), 8.0);
  EXPECT_EQ(eval(parse("-temperature.gpu"), &d), -87.0);
  EXPECT_EQ(eval(parse("memory.free_ratio"), &d), 0.5);
  EXPECT_EQ(eval(parse("memory.used >= 40GB"), &d), 1.0);
  EXPECT_EQ(eval(parse("memory.free_ratio == 50%"), &d), 1.0);
  EXPECT_EQ(eval(parse("clocks_event_reasons.hw_thermal_slowdown == 1"), &d), 1.0);
  EXPECT_EQ(eval(parse("clocks_throttle_reasons.hw_thermal_slowdown"), &d), 1.0);  // alias
  EXPECT_EQ(eval(parse("ecc.errors.uncorrected.volatile.total != 7"), &d), 0.0);
  EXPECT_EQ(eval(parse("2GiB"), &d), 2147483648.0);
  EXPECT_EQ(eval(parse("1h30m"), &d), 5400.0);
  EXPECT_EQ(eval(parse("abs(0 - 3)"), &d), 3.0);
  EXPECT_EQ(eval(parse("not temperature.gpu > 85"), &d), 0.0);
  EXPECT_EQ(eval(parse("warning"), &d), 2.0);
}

TEST(AlertsExpression, AbsentPropagatesAndNeverReadsAsZero) {
  auto d = device(std::nullopt);
  EXPECT_EQ(eval(parse("temperature.gpu > 85"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("temperature.gpu < 85"), &d), std::nullopt);  // not "0 < 85"
  EXPECT_EQ(eval(parse("temperature.gpu + 1"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("not temperature.gpu > 85"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("temperature.gpu > 85 and 1 == 1"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("temperature.gpu > 85 and 1 == 0"), &d), 0.0);  // false and absent
  EXPECT_EQ(eval(parse("temperature.gpu > 85 or 1 == 1"), &d), 1.0);   // true or absent
  EXPECT_EQ(eval(parse("temperature.gpu > 85 or 1 == 0"), &d), 0.0);   // the present side decides
  EXPECT_EQ(eval(parse("temperature.gpu > 85 or temperature.gpu < 10"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("1 / 0"), &d), std::nullopt);
  EXPECT_EQ(eval(parse("temperature.gpu > 1"), nullptr), std::nullopt);  // never sampled
  core::DeviceSnapshot lost;
  lost.state = core::DeviceState::Lost;
  EXPECT_EQ(eval(parse("temperature.gpu > 1"), &lost), std::nullopt);
  EXPECT_EQ(eval(parse("lost"), &lost), 1.0);
  EXPECT_EQ(eval(parse("lost"), &d), 0.0);
  EXPECT_EQ(eval(parse("processes"), &d), std::nullopt);  // processes not read
}

TEST(AlertsExpression, ShownValueIsTheComparedValue) {
  auto d = device(91);
  auto e = parse("temperature.gpu > 85 and memory.free_ratio < 0.9");
  WindowSet w = make_windows(e);
  std::vector<std::optional<double>> scratch;
  EvalInput in;
  in.now_s = 1;
  in.device = &d;
  EXPECT_EQ(e.evaluate(in, w, scratch), 1.0);
  EXPECT_EQ(e.shown_value(scratch), 91.0);
  auto o = parse("temperature.gpu > 95 or memory.free_ratio < 0.9");
  w = make_windows(o);
  EXPECT_EQ(o.evaluate(in, w, scratch), 1.0);
  EXPECT_EQ(o.shown_value(scratch), 0.5);
}

std::chrono::system_clock::time_point tp(double s) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(s)));
}

TEST(AlertsExpression, DerivedValues) {
  auto d = device(60);
  std::vector<XidSeen> xids = {{31, tp(900)}, {48, tp(800)}, {79, tp(700)}};
  std::array<double, diagnose::kKindCount> ranks{};
  ranks[static_cast<std::size_t>(diagnose::Kind::InputStarved)] = kRankWarning;
  EvalInput in;
  in.age_s = 4.5;
  in.stale = true;
  in.processes = 2;
  in.xids = &xids;
  in.finding_ranks = ranks.data();
  in.gpus = 8;
  in.driver_up = true;
  in.sampler_age_s = 1.5;
  EXPECT_EQ(eval(parse("age"), &d, 1000, nullptr, in), 4.5);
  EXPECT_EQ(eval(parse("stale"), &d, 1000, nullptr, in), 1.0);
  EXPECT_EQ(eval(parse("processes > 0"), &d, 1000, nullptr, in), 1.0);
  EXPECT_EQ(eval(parse("xid_age(\"48|79\")"), &d, 1000, nullptr, in), 200.0);
  EXPECT_EQ(eval(parse("xid_age()"), &d, 1000, nullptr, in), 100.0);  // any Xid
  EXPECT_EQ(eval(parse("xid_age_except(\"31\")"), &d, 1000, nullptr, in), 200.0);
  EXPECT_EQ(eval(parse("xid_age(\"62\")"), &d, 1000, nullptr, in), std::nullopt);  // none such
  EXPECT_EQ(eval(parse("finding(\"input_starved\") >= warning"), &d, 1000, nullptr, in), 1.0);
  EXPECT_EQ(eval(parse("finding(\"thermal_throttle\")"), &d, 1000, nullptr, in), 0.0);
  EXPECT_EQ(eval(parse("gpus"), &d, 1000, nullptr, in), 8.0);
  EXPECT_EQ(eval(parse("sampler_age"), &d, 1000, nullptr, in), 1.5);
  auto e = parse("xid_age(\"48|79\") < 300");
  in.now_s = 1000;
  in.device = &d;
  EXPECT_EQ(e.matched_xid(in), 48u);
  auto n = parse("driver_up == 0 or gpus == 0", Scope::Node);
  EvalInput gone;
  gone.driver_up = false;
  EXPECT_EQ(eval(n, nullptr, 1, nullptr, gone), 1.0);
}

// Pushes (t, x) pairs through E's windows and returns the value after the last.
std::optional<double> series(const std::string& text, const std::vector<std::pair<double, std::optional<double>>>& points) {
  auto e = parse(text);
  WindowSet w = make_windows(e);
  std::vector<std::optional<double>> scratch;
  std::optional<double> r;
  for (const auto& [t, x] : points) {
    auto d = device(x);
    EvalInput in;
    in.now_s = t;
    in.device = &d;
    r = e.evaluate(in, w, scratch);
  }
  return r;
}

TEST(AlertsExpression, WindowFunctions) {
  // temperature: 10, 20, 30, 40 at t = 0, 60, 120, 180
  std::vector<std::pair<double, std::optional<double>>> p = {{0, 10}, {60, 20}, {120, 30}, {180, 40}};
  EXPECT_EQ(series("avg(temperature.gpu, 5m)", p), 25.0);
  EXPECT_EQ(series("avg(temperature.gpu, 2m)", p), 30.0);  // [60, 180]: 20, 30, 40
  EXPECT_EQ(series("min(temperature.gpu, 2m)", p), 20.0);
  EXPECT_EQ(series("max(temperature.gpu, 5m)", p), 40.0);
  EXPECT_DOUBLE_EQ(*series("trend(temperature.gpu, 5m)", p), 10.0 / 60);
  EXPECT_DOUBLE_EQ(*series("predict(temperature.gpu, 5m, 1h)", p), 40.0 + 60 * 10);
  EXPECT_EQ(series("increase(temperature.gpu, 5m)", p), 30.0);
  EXPECT_DOUBLE_EQ(*series("rate(temperature.gpu, 5m)", p), 30.0 / 180);
  EXPECT_EQ(series("share(temperature.gpu > 25, 5m)", p), 0.5);
  EXPECT_EQ(series("count(temperature.gpu, 5m)", p), 4.0);  // count_over_time: [0, 180] inclusive
  EXPECT_EQ(series("count(temperature.gpu, 1m)", p), 2.0);  // [120, 180]
  // Under 2 minutes of samples, a time divided by that test is absent (unknown), not false.
  EXPECT_EQ(series("100 / (count(temperature.gpu, 10m) >= 2 * count(temperature.gpu, 1m)) < 600", {{0, 1}, {60, 2}}),
            std::nullopt);
  EXPECT_EQ(series("100 / (count(temperature.gpu, 10m) >= 2 * count(temperature.gpu, 1m)) < 600", p), 1.0);
  // A counter reset (40 -> 5) counts the new value as the increase, as Prometheus does.
  p.push_back({240, 5});
  EXPECT_EQ(series("increase(temperature.gpu, 5m)", p), 35.0);
  // Absent samples are skipped, not zeros.
  std::vector<std::pair<double, std::optional<double>>> gaps = {{0, 10}, {60, std::nullopt}, {120, 30}};
  EXPECT_EQ(series("avg(temperature.gpu, 5m)", gaps), 20.0);
  EXPECT_EQ(series("count(temperature.gpu, 5m)", gaps), 2.0);
  EXPECT_EQ(series("min(temperature.gpu, 5m)", gaps), 10.0);
  // Too few samples: absent.
  EXPECT_EQ(series("trend(temperature.gpu, 5m)", {{0, 10}}), std::nullopt);
  EXPECT_EQ(series("rate(temperature.gpu, 5m)", {{0, 10}}), std::nullopt);
  EXPECT_EQ(series("avg(temperature.gpu, 5m)", {{0, std::nullopt}}), std::nullopt);
  // Everything old leaves the window.
  EXPECT_EQ(series("max(temperature.gpu, 1m)", {{0, 90}, {30, 20}, {100, 10}}), 10.0);
}

TEST(AlertsExpression, WindowsStayExactOverLongRuns) {
  // 3 days at 1 Hz of a line; the 10-minute trend and max stay exact through the rebasing.
  auto e = parse("trend(memory.used, 10m)");
  auto m = parse("max(memory.used, 10m)");
  WindowSet we = make_windows(e), wm = make_windows(m);
  std::vector<std::optional<double>> scratch;
  std::optional<double> slope, mx;
  for (int t = 0; t < 3 * 86400; ++t) {
    auto d = device(50, 1e9 + 1000.0 * t);
    EvalInput in;
    in.now_s = 1.79e9 + t;
    in.device = &d;
    slope = e.evaluate(in, we, scratch);
    mx = m.evaluate(in, wm, scratch);
  }
  EXPECT_NEAR(*slope, 1000.0, 1e-3);
  EXPECT_EQ(*mx, 1e9 + 1000.0 * (3 * 86400 - 1));
}

TEST(AlertsExpression, ParseErrorsNameTheColumn) {
  EXPECT_EQ(error_of("temprature.gpu > 85"), "1: unknown field 'temprature.gpu'. Did you mean 'temperature.gpu'?");
  EXPECT_EQ(error_of("temperature.gpu > 85 and avgg(utilization.gpu, 5m) > 0"),
            "26: unknown function 'avgg'. Did you mean 'avg'?");
  EXPECT_EQ(error_of("avg(utilization.gpu, 5)"), "22: avg(): expected a duration (30s, 5m, 1h), found '5'");
  EXPECT_EQ(error_of("temperature.gpu > 85 > 1"), "22: comparisons do not chain: join them with 'and'");
  EXPECT_EQ(error_of("temperature.gpu = 85"), "17: '=' is not an operator: compare with '=='");
  EXPECT_EQ(error_of("temperature.gpu > 85 &&"), "22: '&' is not an operator: use 'and', 'or'");
  EXPECT_EQ(error_of("(temperature.gpu > 85"), "22: expected ')' at the end");
  EXPECT_EQ(error_of("temperature.gpu >"), "18: the expression ends too early: a value is missing");
  EXPECT_EQ(error_of("name == 1"), "1: the field 'name' is text, not a number");
  EXPECT_EQ(error_of("5 parsecs"), "3: unexpected 'parsecs' after the expression");
  EXPECT_EQ(error_of("5parsecs"), "1: '5parsecs': unknown unit 'parsecs' (numbers take %, B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, W, MHz, GHz, or a duration: 30s, 5m, 1h30m)");
  EXPECT_EQ(error_of("finding(\"input_starve\")"), "10: finding(): unknown kind 'input_starve'. Did you mean 'input_starved'? (docs/diagnose.md lists the kinds)");
  EXPECT_EQ(error_of("xid_age(\"48,62\")"), "12: Xid codes are numbers separated by '|', e.g. \"48|62|64\"");
  EXPECT_EQ(error_of("temperature.gpu > 85", Scope::Node), "1: 'temperature.gpu' is a per-GPU value: it needs scope: gpu");
  EXPECT_EQ(error_of("stale", Scope::Node), "1: 'stale' is a per-GPU value: it needs scope: gpu");
  EXPECT_EQ(error_of("gpus < max(gpus, 1h)", Scope::Node), "");
}

}  // namespace expression_test
}  // namespace gpuwatch::alerts
