#pragma once
// GPU recovery action (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, nvmlDeviceGpuRecoveryAction_t):
// nvidia-smi's words for it, as scenarios write them (`gpu_recovery_action` values and
// events' `recovery_action`).
#include <optional>
#include <string_view>

namespace gpuwatch::sim {

// "None" 0, "GPU Reset" 1, "Node Reboot" 2, "Drain P2P" 3, "Drain and Reset" 4 (also the
// digits); nullopt for anything else.
std::optional<unsigned> recovery_action_code(std::string_view text);
// The accepted words, for error messages.
inline constexpr std::string_view kRecoveryActionWords = "None, GPU Reset, Node Reboot, Drain P2P, Drain and Reset";

}  // namespace gpuwatch::sim
