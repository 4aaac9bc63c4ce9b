#include "vendors/vendor_table.hpp"

#include "amd/amd_backend.hpp"
#include "intel/intel_backend.hpp"
#include "nvml/driver_probe.hpp"
#include "nvml/nvml_backend.hpp"

namespace gpuwatch::vendors {

std::span<const backend::Opener> vendor_table() {
  static constexpr backend::Opener kTable[] = {nvml::kOpener, amd::kOpener, intel::kOpener};
  return kTable;
}

std::unique_ptr<backend::Backends> open_backends(const backend::OpenOptions& options) {
  return backend::Backends::open(vendor_table(), options);
}

doctor::NvmlFacts probe_nvidia_driver(const std::string& library, std::chrono::milliseconds deadline) {
  return nvml::probe_nvml({library, deadline});
}

}  // namespace gpuwatch::vendors
