#pragma once
// The MIG devices of a GPU in MIG mode: identity (uuid, GPU and compute instance ids,
// profile) and the GPU instance's memory, through the MIG device handles
// (nvmlDeviceGetMigDeviceHandleByIndex). Unprivileged callers can read all of this.
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// Fills OUT with the MIG devices of DEV (empty when MIG is off, not supported, or the
// driver lacks the MIG functions). A MIG device that does not answer its ids is skipped.
// Returns GPU_IS_LOST when the GPU is gone, else SUCCESS.
nvmlReturn_t read_mig_devices(const NvmlApi& api, nvmlDevice_t dev, std::vector<core::MigDeviceSample>& out);

// "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb" -> "1c.3g.40gb" (what follows the last "MIG ");
// "" when the name has no profile.
std::string mig_profile_of(std::string_view mig_device_name);

}  // namespace gpuwatch::nvml
