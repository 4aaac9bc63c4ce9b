#pragma once

namespace gpuwatch::cli {
// Parses the command line, dispatches to a subcommand and returns the exit code.
// Exceptions are caught here and turned into documented exit codes.
int run_app(int argc, char** argv);
}  // namespace gpuwatch::cli
