#include "cli/hung_exit.hpp"

#include <cstdio>
#include <cstdlib>

#include "backend/abandoned_calls.hpp"
#include "sim_session/session.hpp"

namespace gpuwatch::cli {

int exit_past_hung_nvml(int code) {
  if (backend::abandoned_calls() == 0) return code;
  std::fflush(stdout);
  std::fflush(stderr);
  sim_session::remove_simulated_hosts_now();  // --simulate's host folder: no destructor runs past here
  std::_Exit(code);
}

}  // namespace gpuwatch::cli
