#pragma once
// NVML GPM (GPU Performance Monitoring, Hopper and later) for sampling loops. A GPM metric
// is a mean over the window between two NVML samples, so the reader keeps the previous
// sample of the GPU, and of each MIG GPU instance, and reports the window since then:
//   - the first call has no window: the fields stay NotRead (no series, never 0);
//   - a GPU without GPM (before Hopper, or a driver without the symbols): NotSupported /
//     FunctionMissing, asked once;
//   - a GPU in MIG mode: whole-GPU sampling is not supported; its GPU instances are.
// Values are converted to base units here: NVML's percent -> ratio 0..1, MiB/s -> bytes/s.
// Not thread-safe: one reader per sampling thread (it samples one GPU).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// Whether DEV supports GPM: SUCCESS and *supported (false before Hopper; a NOT_SUPPORTED
// answer also reads as false), or the NVML error (FUNCTION_NOT_FOUND: a driver without GPM).
nvmlReturn_t gpm_supported(const NvmlApi& api, nvmlDevice_t dev, bool* supported);

// The fields whose source is core::Source::Gpm (their arg is the NVML_GPM_METRIC_* id).
const std::vector<core::FieldId>& gpm_fields();

class GpmReader {
 public:
  explicit GpmReader(const NvmlApi& api) : api_(api) {}
  ~GpmReader();  // frees its NVML samples
  GpmReader(const GpmReader&) = delete;
  GpmReader& operator=(const GpmReader&) = delete;

  // Writes every gpm_fields() reading of DEVICE for the GPU DEV: the window since the
  // previous call. Returns the code of the sample call (GPU_IS_LOST: the GPU is gone).
  nvmlReturn_t read_device(nvmlDevice_t dev, core::DeviceSnapshot& device);
  // Sets device.gpu_instance_activity for the GPU instances of device.mig_devices (DEV is
  // the parent GPU): one entry per instance that has a window.
  void read_gpu_instances(nvmlDevice_t dev, core::DeviceSnapshot& device);
  // Forgets the previous samples (the GPU was lost or reset): the next call starts over.
  void reset();

 private:
  struct Window {
    nvmlGpmSample_t previous = nullptr, current = nullptr;
    bool has_previous = false;
  };
  struct Metrics {
    nvmlReturn_t code = NVML_SUCCESS;  // of the sample call
    bool ready = false;                // a window exists and nvmlGpmMetricsGet answered
    std::vector<std::optional<double>> values;  // per requested id, NVML units
  };
  template <class Take>
  Metrics sample(Window& window, const std::vector<unsigned>& ids, Take take);
  void release(Window& window);
  std::optional<core::FieldStatus> support(nvmlDevice_t dev, int* code);

  const NvmlApi& api_;
  std::optional<bool> supported_;
  int support_code_ = 0;
  Window device_;
  std::map<std::pair<std::uint32_t, std::string>, Window> instances_;  // (GPU instance id, profile)
};

}  // namespace gpuwatch::nvml
