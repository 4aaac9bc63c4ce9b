// The advice in each vendor's words (issue 28): kinds.def's advice is NVIDIA's (nvidia-smi); an AMD
// GPU's finding says amd-smi / rocm-smi, an Intel GPU's says xpu-smi. A kind listed here for a vendor
// gets these lines instead of kinds.def's; a kind not listed says the same for every vendor (its words
// name no vendor tool). Kinds of NVIDIA's driver alone (Xid, persistence mode, row remapping, the
// driver's recovery action) are never raised for another vendor and have no advice for it.
#include <algorithm>
#include <array>
#include <string_view>

#include "diagnose/kinds.hpp"

namespace gpuwatch::diagnose {
namespace {

struct VendorAdvice {
  Kind kind;
  core::Vendor vendor;
  std::array<std::string_view, 3> lines;  // "" ends the list
};

constexpr std::array<Kind, 4> kNvidiaOnlyKinds = {Kind::Xid, Kind::PersistenceOff, Kind::RowRemap,
                                                  Kind::RecoveryAction};

constexpr VendorAdvice kVendorAdvice[] = {
    {Kind::ThermalThrottle, core::Vendor::Amd,
     {"check the airflow, fans and inlet temperature of the node; clean the filters",
      "lower the power cap a little (amd-smi set --power-cap, or rocm-smi --setpoweroverdrive) to run cooler at a "
      "stable clock",
      "watch the junction (hotspot) temperature: amd-smi metric --temperature"}},
    {Kind::ThermalThrottle, core::Vendor::Intel,
     {"check the airflow, fans and inlet temperature of the node; clean the filters",
      "lower the power limit a little (xpu-smi config -d N --powerlimit) to run cooler at a stable clock",
      "watch the temperature and frequency: xpu-smi stats -d N"}},
    {Kind::PowerCap, core::Vendor::Amd,
     {"check the power cap: amd-smi metric --power and amd-smi static --limit (or rocm-smi --showpower "
      "--showmaxpower); restore the default with rocm-smi --resetpoweroverdrive",
      "a capped GPU at full load is normal for big matmuls; the finding matters when the cap was lowered"}},
    {Kind::PowerCap, core::Vendor::Intel,
     {"check the power limit: xpu-smi config -d N and xpu-smi stats -d N; set it back with xpu-smi config -d N "
      "--powerlimit",
      "a capped GPU at full load is normal for big matmuls; the finding matters when the limit was lowered"}},
    {Kind::OtherThrottle, core::Vendor::Amd,
     {"check the power supply and the board's power brake signal (hardware slowdown)",
      "look at amd-smi metric --throttle (the gpu_metrics throttle_status bits) for the active reasons"}},
    {Kind::OtherThrottle, core::Vendor::Intel,
     {"check the power supply and the board's power brake signal (hardware slowdown)",
      "look at xpu-smi stats -d N and the card's gt/gt0/throttle_reason_* files in sysfs for the active reasons"}},
    {Kind::UnattributedMemory, core::Vendor::Amd,
     {"processes of other containers are not visible: run with --pid=host to see them",
      "otherwise a leaked context or a zombie process: check amd-smi process and fuser -v /dev/kfd /dev/dri/renderD*"}},
    {Kind::UnattributedMemory, core::Vendor::Intel,
     {"processes of other containers are not visible: run with --pid=host to see them",
      "otherwise a leaked context or a zombie process: check xpu-smi ps and fuser -v /dev/dri/renderD*"}},
    {Kind::EccUncorrectable, core::Vendor::Amd,
     {"the job on this GPU may have computed wrong results or crashed: restart it elsewhere",
      "drain the GPU and reset it (amd-smi reset --gpureset); amd-smi bad-pages lists retired memory; replace "
      "it if errors return"}},
    {Kind::EccUncorrectable, core::Vendor::Intel,
     {"the job on this GPU may have computed wrong results or crashed: restart it elsewhere",
      "drain the GPU and reset it (xpu-smi config -d N --reset); replace it if errors return"}},
    {Kind::GpuLost, core::Vendor::Amd,
     {"drain the node and reboot it; check the GPU's seating, power and the PCIe/xGMI links (dmesg: amdgpu)",
      "replace the GPU if it happens again"}},
    {Kind::GpuLost, core::Vendor::Intel,
     {"drain the node and reboot it; check the GPU's seating, power and the PCIe/Xe Link links (dmesg: i915 or xe)",
      "replace the GPU if it happens again"}},
    {Kind::MemoryLeak, core::Vendor::Intel,
     {"look for tensors kept alive across steps (losses kept with their graph, growing lists, caches)",
      "print torch.xpu.memory_stats() every few steps to see which pool grows"}},
    {Kind::MemoryPressure, core::Vendor::Intel,
     {"a caching allocator holds memory on purpose: a steady plateau is fine",
      "growing towards the limit: use activation checkpointing, mixed precision (AMP) or a smaller batch"}},
};

}  // namespace

bool applies_to(Kind kind, core::Vendor vendor) {
  return vendor == core::Vendor::Nvidia ||
         std::find(kNvidiaOnlyKinds.begin(), kNvidiaOnlyKinds.end(), kind) == kNvidiaOnlyKinds.end();
}

std::vector<std::string> default_advice(Kind kind, core::Vendor vendor) {
  if (!applies_to(kind, vendor)) return {};
  for (const auto& row : kVendorAdvice) {
    if (row.kind != kind || row.vendor != vendor) continue;
    std::vector<std::string> out;
    for (auto line : row.lines) {
      if (!line.empty()) out.emplace_back(line);
    }
    return out;
  }
  return default_advice(kind);
}

}  // namespace gpuwatch::diagnose
