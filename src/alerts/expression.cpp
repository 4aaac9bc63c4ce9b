// Evaluating an expression's flat program (absent in, absent out) and reading back the value
// worth showing and the Xid that matched. Parsing: expression_parser.cpp.
#include "alerts/expression.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::alerts {

const char* to_string(Scope scope) { return scope == Scope::Gpu ? "gpu" : "node"; }

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

}  // namespace gpuwatch::alerts
