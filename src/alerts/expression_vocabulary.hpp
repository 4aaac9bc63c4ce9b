#pragma once
// Why its own file: the names an expression may use (fields, derived values, constants,
// functions) are one table read by the parser, by error messages ("did you mean") and by
// expression_identifiers() for the docs, so none of them keeps its own list.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/expression.hpp"
#include "alerts/window.hpp"
#include "core/field.hpp"

namespace gpuwatch::alerts::expression_syntax {

// Fields an expression may read: every numeric field of the field table, by query name or alias.
const std::map<std::string, core::FieldId, std::less<>>& numeric_fields();

struct Derived {
  std::string_view name;
  Op op;
  bool gpu_only;
};
inline constexpr Derived kDerived[] = {
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
inline constexpr Constant kConstants[] = {{"info", kRankInfo}, {"warning", kRankWarning}, {"critical", kRankCritical}};

struct WindowFunction {
  std::string_view name;
  WindowFn fn;
};
inline constexpr WindowFunction kWindowFunctions[] = {
    {"avg", WindowFn::Avg},       {"min", WindowFn::Min},         {"max", WindowFn::Max},
    {"rate", WindowFn::Rate},     {"increase", WindowFn::Increase}, {"trend", WindowFn::Trend},
    {"predict", WindowFn::Predict}, {"share", WindowFn::Share},   {"count", WindowFn::Count},
};

// Every function's name: the windowed ones, then abs, xid_age, xid_age_except, finding.
const std::vector<std::string>& function_names();

}  // namespace gpuwatch::alerts::expression_syntax
