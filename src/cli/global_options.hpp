#pragma once
#include <string>

namespace gpuwatch::cli {

// Options that apply to every subcommand, parsed once by app.cpp.
struct GlobalOptions {
  std::string nvml_library;  // --nvml-library / GPUWATCH_NVML_LIBRARY; empty: the system's libnvidia-ml.so.1
  std::string simulate;      // --simulate SCENARIO: run on the simulated driver
  bool no_color = false;     // --no-color (NO_COLOR is honoured too)
  std::string command = "status";  // the command given, for messages ("sim run" for a nested one)
};

}  // namespace gpuwatch::cli
