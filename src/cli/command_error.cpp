#include "cli/command_error.hpp"

#include <fmt/core.h>

#include "core/sink_text.hpp"

namespace gpuwatch::cli {

int command_error(std::string_view command, std::string_view message, int code) {
  // A message may quote a file's, a driver's or a process's bytes: shown visibly (issue 31).
  fmt::print(stderr, "gpuwatch {}: {}\n", command, core::terminal_lines(message));
  return code;
}

}  // namespace gpuwatch::cli
