// PLACEHOLDER until --simulate lands.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"

namespace gpuwatch::cli {
int prepare_environment(GlobalOptions&, const char*) { return kExitOk; }
}  // namespace gpuwatch::cli
