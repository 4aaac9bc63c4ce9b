#include "cli/command_error.hpp"

#include <fmt/core.h>

namespace gpuwatch::cli {

int command_error(std::string_view command, std::string_view message, int code) {
  fmt::print(stderr, "gpuwatch {}: {}\n", command, message);
  return code;
}

}  // namespace gpuwatch::cli
