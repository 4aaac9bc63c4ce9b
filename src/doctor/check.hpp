#pragma once
// One finding of `gpuwatch doctor`: what was checked, the verdict, the evidence and the fix.
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::doctor {

// Skipped: not applicable here, could not be checked, or it follows from a cause another check
// names (the evidence says which), so one fault is one problem.
enum class Verdict { Ok, Warning, Problem, Skipped };

std::string_view verdict_name(Verdict verdict);  // "ok", "warning", "problem", "skipped"

struct Check {
  std::string id;        // stable dotted id ("kernel.module"), as in docs/doctor.md
  std::string title;     // what was checked, a few words
  Verdict verdict = Verdict::Ok;
  std::string evidence;  // what was seen (may quote files and the GPU: encode at the sink)
  std::string fix;       // what to do; empty when there is nothing to do
  std::vector<unsigned> gpus;  // the GPUs it concerns (per-GPU checks), by NVML index
};

// The exit code of a run: 0 all OK (or skipped), 1 a warning, 2 a problem.
int exit_code_of(const std::vector<Check>& checks);

}  // namespace gpuwatch::doctor
