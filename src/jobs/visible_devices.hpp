#pragma once
// CUDA_VISIBLE_DEVICES as CUDA reads it: a comma-separated list of GPU indices, GPU UUIDs
// ("GPU-...", a unique prefix is enough) or MIG device UUIDs ("MIG-..."). CUDA stops at the
// first entry it cannot parse, and so does this; "" or "-1" hides every GPU. Pure logic.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::jobs {

struct VisibleDevice {
  enum class Kind { Index, GpuUuid, MigUuid };
  Kind kind = Kind::Index;
  unsigned index = 0;  // Kind::Index
  std::string uuid;    // GpuUuid, MigUuid: as written ("GPU-..." / "MIG-...")
};

struct VisibleDevices {
  bool restricted = false;              // false: the variable is unset, every GPU is visible
  std::vector<VisibleDevice> devices;   // restricted: only these (empty: none)
  std::string ignored;                  // the entries CUDA ignores (from the first bad one on), "" if none
};

// VALUE: the variable's value, nullopt when unset.
VisibleDevices parse_visible_devices(std::optional<std::string_view> value);

// Whether a job sees GPU INDEX (UUID GPU_UUID), or, when MIG_UUID is given, that MIG device of it.
// A GPU index or GPU UUID entry exposes the whole GPU (and its MIG devices); a MIG UUID only its device.
bool is_visible(const VisibleDevices& visible, unsigned index, std::string_view gpu_uuid,
                std::optional<std::string_view> mig_uuid = std::nullopt);

}  // namespace gpuwatch::jobs
