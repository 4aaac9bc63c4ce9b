#include "cli/hung_exit.hpp"

#include <cstdio>
#include <cstdlib>

#include "nvml/abandoned_calls.hpp"

namespace gpuwatch::cli {

int exit_past_hung_nvml(int code) {
  if (nvml::abandoned_calls() == 0) return code;
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace gpuwatch::cli
