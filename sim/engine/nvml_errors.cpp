#include "sim/engine/nvml_errors.hpp"

#include <array>
#include <utility>

namespace gpuwatch::sim {
namespace {
constexpr std::array<const char*, 28> kTexts = {
    "Success", "Uninitialized", "Invalid Argument", "Not Supported", "Insufficient Permissions",
    "Already Initialized", "Not Found", "Insufficient Size", "Insufficient External Power",
    "Driver Not Loaded", "Timeout", "Interrupt Request Issue", "NVML Shared Library Not Found",
    "Function Not Found", "Corrupted infoROM", "GPU is lost", "GPU requires reset",
    "GPU access blocked by the operating system", "Driver/library version mismatch",
    "In use by another client", "Insufficient Memory", "No data", "vGPU ECC not supported",
    "Insufficient Resources", "Invalid Frequency", "Argument version mismatch",
    "Requested functionality has been deprecated", "System is not in ready state"};
}  // namespace

const char* nvml_error_text(int code) noexcept {
  if (code >= 0 && code < static_cast<int>(kTexts.size())) return kTexts[static_cast<std::size_t>(code)];
  return "Unknown Error";
}

std::optional<int> nvml_error_from_text(std::string_view text) {
  if (text == "N/A") return 3;  // nvidia-smi prints [N/A] for NVML_ERROR_NOT_SUPPORTED
  if (text == "Unknown Error") return 999;
  for (std::size_t i = 1; i < kTexts.size(); ++i)
    if (text == kTexts[i]) return static_cast<int>(i);
  return std::nullopt;
}

}  // namespace gpuwatch::sim
