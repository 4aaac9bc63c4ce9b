#include "doctor/check.hpp"

namespace gpuwatch::doctor {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Ok: return "ok";
    case Verdict::Warning: return "warning";
    case Verdict::Problem: return "problem";
    case Verdict::Skipped: return "skipped";
  }
  return "ok";
}

int exit_code_of(const std::vector<Check>& checks) {
  int code = 0;
  for (const auto& check : checks) {
    if (check.verdict == Verdict::Problem) code = 2;
    else if (check.verdict == Verdict::Warning && code < 1) code = 1;
  }
  return code;
}

}  // namespace gpuwatch::doctor
