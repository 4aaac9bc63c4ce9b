#pragma once
// The DRM clients of the i915 and xe drivers as /proc/<pid>/fdinfo/<fd> shows them
// (Documentation/gpu/drm-usage-stats.rst): per client, its device (drm-pdev), its engines' busy
// time and its memory. i915 counts busy time in ns (drm-engine-<class>); xe counts GPU cycles
// (drm-cycles-<class>) against the GPU's timestamp (drm-total-cycles-<class>).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "intel/intel_card.hpp"

namespace gpuwatch::intel {

// The engine classes gpuwatch reads: render (i915 render, xe rcs), compute (compute, ccs),
// copy (copy, bcs), video (video and video-enhance, vcs and vecs).
enum class EngineClass : std::uint8_t { Render, Compute, Copy, Video };
inline constexpr std::size_t kEngineClassCount = 4;

struct EngineUse {
  std::uint64_t busy = 0;   // i915: ns; xe: cycles
  std::uint64_t total = 0;  // xe: the GPU timestamp in cycles (drm-total-cycles-*); i915: 0
  bool present = false;
};

struct DrmClient {
  std::uint32_t pid = 0;
  std::uint64_t client_id = 0;
  KernelDriver driver = KernelDriver::I915;
  std::string pdev;  // "0000:03:00.0"
  std::array<EngineUse, kEngineClassCount> engines{};
  // drm-total-local0 (i915) / drm-total-vram0 (xe), bytes.
  std::optional<std::uint64_t> memory_bytes;

  const EngineUse& engine(EngineClass c) const { return engines[static_cast<std::size_t>(c)]; }
};

// One fdinfo file: the client, or nullopt when it is not an i915 or xe DRM file.
std::optional<DrmClient> parse_fdinfo(std::string_view text, std::uint32_t pid);

// The clients of every process under PROC_DIR (ROOT/proc), one per (pid, client id, device)
// however many descriptors share it. COMPLETE is false when a process's descriptors could not
// be read (another user's process without the right to look): what is summed over clients is
// then only part of the truth; ERROR is that errno.
struct DrmScan {
  std::vector<DrmClient> clients;
  bool complete = true;
  int error = 0;
};
DrmScan scan_drm_clients(const std::string& proc_dir);

}  // namespace gpuwatch::intel
