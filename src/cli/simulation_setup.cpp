// `gpuwatch --simulate SCENARIO COMMAND`: puts this process on the simulated driver
// before any command loads NVML. Prints nothing on stdout (commands may write JSON);
// commands can tell they are simulated from GlobalOptions::simulate.
#include <cstdlib>
#include <fmt/core.h>
#include <memory>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "sim_session/session.hpp"

namespace gpuwatch::cli {

namespace {

// Lives until exit: its destructor kills the stand-ins (and PR_SET_PDEATHSIG kills them
// if this process dies any other way).
std::unique_ptr<sim_session::SimSession>& active_session() {
  static std::unique_ptr<sim_session::SimSession> session;
  return session;
}

// --nvml-library given on the command line wins over --simulate; a value that only
// came from GPUWATCH_NVML_LIBRARY (e.g. inherited from `sim run`) does not.
bool library_given_explicitly(const std::string& library) {
  if (library.empty()) return false;
  const char* from_env = std::getenv("GPUWATCH_NVML_LIBRARY");
  return from_env == nullptr || library != from_env;
}

}  // namespace

int prepare_environment(GlobalOptions& global, const char* /*argv0*/) {
  if (global.simulate.empty()) return kExitOk;
  auto session = sim_session::start_sim_session(global.simulate);
  if (!session) {
    fmt::print(stderr, "gpuwatch: {}\n", session.error().message);
    return session.error().code != 0 ? session.error().code : kExitRuntimeError;
  }
  if (!library_given_explicitly(global.nvml_library)) global.nvml_library = (*session)->driver_library().string();
  sim_session::apply_environment((*session)->environment(/*for_child=*/false));
  active_session() = std::move(*session);
  return kExitOk;
}

std::vector<std::pair<std::string, std::string>> simulated_child_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  if (!active_session()) return out;
  for (auto& a : active_session()->environment(/*for_child=*/true)) {
    if (a.name == "LD_LIBRARY_PATH" || a.name == "GPUWATCH_NVML_LIBRARY") out.emplace_back(std::move(a.name), std::move(a.value));
  }
  return out;
}

}  // namespace gpuwatch::cli
