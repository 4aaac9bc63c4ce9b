#pragma once
#include <string_view>

namespace gpuwatch::core {

// A file built into the binary at build time (scenarios, web assets).
struct EmbeddedFile {
  std::string_view name;     // base name without extension
  std::string_view content;  // the bytes
};

}  // namespace gpuwatch::core
