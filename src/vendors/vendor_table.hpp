#pragma once
// The vendor table: every device backend gpuwatch is built with, in global index order, and
// how commands and the C API open "the backends" from it. The one file above the vendors'
// folders that names each vendor's backend (as nvtop's gpu_vendor registrations); everything
// else sees backend::DeviceBackend only.
#include <chrono>
#include <memory>
#include <span>
#include <string>

#include "backend/backends.hpp"
#include "doctor/facts.hpp"

namespace gpuwatch::vendors {

std::span<const backend::Opener> vendor_table();

// Opens every row of the table (a backend that fails leaves the others working; its message is
// in failures()). Never null; empty() when none opened.
std::unique_ptr<backend::Backends> open_backends(const backend::OpenOptions& options);

// `gpuwatch doctor`'s look at NVIDIA's driver (nvml/driver_probe.hpp): LIBRARY (empty: the
// loader's default) loaded and each GPU's setup read within DEADLINE.
doctor::NvmlFacts probe_nvidia_driver(const std::string& library, std::chrono::milliseconds deadline);

}  // namespace gpuwatch::vendors
