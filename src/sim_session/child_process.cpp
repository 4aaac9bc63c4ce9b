#include "sim_session/child_process.hpp"

#include <cstdio>
#include <fmt/core.h>

#include "host/child_process.hpp"

namespace gpuwatch::sim_session {

int run_child_process(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    fmt::print(stderr, "gpuwatch: no command to run\n");
    return 127;
  }
  auto child = host::ChildProcess::start(argv);
  if (!child) {
    fmt::print(stderr, "gpuwatch: {}\n", child.error().message);
    return child.error().code;
  }
  return (*child)->wait().status;
}

}  // namespace gpuwatch::sim_session
