#pragma once
// How a command reports what stopped it: "gpuwatch COMMAND: MESSAGE" on standard error.
#include <string_view>

namespace gpuwatch::cli {

// Prints "gpuwatch COMMAND: MESSAGE" to stderr and returns CODE, the exit code to end with.
int command_error(std::string_view command, std::string_view message, int code);

}  // namespace gpuwatch::cli
