#include "diagnose/kinds.hpp"

#include <vector>

namespace gpuwatch::diagnose {
namespace {

const std::vector<KindInfo>& table() {
  static const std::vector<KindInfo> kTable = {
      {Kind::InputStarved, "input_starved", "The input pipeline starves the GPU",
       {"raise DataLoader num_workers (about the number of CPU cores per GPU) and set persistent_workers=True",
        "use pin_memory=True and non_blocking=True copies; raise prefetch_factor",
        "move decoding/augmentation to the GPU (DALI) or pre-process the dataset; check storage/network throughput"}},
      {Kind::LaunchBound, "launch_bound", "Kernels too small: the GPU is busy launching, its SMs mostly idle",
       {"capture the step with CUDA graphs (torch.compile mode=\"reduce-overhead\")",
        "use a bigger batch, or fuse small operations (torch.compile)",
        "profile one step (torch.profiler / nsys) to find the many short kernels"}},
      {Kind::LowUtilization, "low_utilization", "The GPU is underused",
       {"use a bigger batch or run more work per GPU (several jobs with MPS, or a smaller MIG slice)",
        "profile one step to see where the time goes (CPU work, synchronisation, I/O)"}},
      {Kind::Imbalance, "imbalance", "The GPUs of one job are unevenly loaded",
       {"balance the work per rank (pipeline stages, data shards, sequence lengths)",
        "check the slow GPU for throttling or a slower link; the others wait for it at every collective"}},
      {Kind::ThermalThrottle, "thermal_throttle", "Thermal throttling lowers the clocks",
       {"check the airflow, fans and inlet temperature of the node; clean the filters",
        "lower the power limit a little (nvidia-smi -pl) to run cooler at a stable clock"}},
      {Kind::PowerCap, "power_cap", "The power limit caps the clocks",
       {"check the power limit: nvidia-smi -q -d POWER; restore the default with nvidia-smi -pl",
        "a capped GPU at full load is normal for big matmuls; the finding matters when the limit was lowered"}},
      {Kind::OtherThrottle, "other_throttle", "Clocks held down by a hardware slowdown, power brake or sync boost",
       {"check the power supply and the board's power brake signal (hardware slowdown)",
        "look at nvidia-smi -q -d PERFORMANCE for the active reasons"}},
      {Kind::MemoryLeak, "memory_leak", "A process's GPU memory grows steadily",
       {"look for tensors kept alive across steps (losses kept with their graph, growing lists, caches)",
        "call torch.cuda.memory._record_memory_history() and dump a snapshot to see who allocates",
        "if it is the allocator's cache growing with dynamic shapes: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}},
      {Kind::MemoryPressure, "memory_pressure", "GPU memory almost full",
       {"a caching allocator holds memory on purpose: a steady plateau is fine",
        "growing towards the limit: use activation checkpointing, mixed precision (AMP) or a smaller batch",
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation"}},
      {Kind::IdleProcess, "idle_process", "A process holds GPU memory while the GPU does nothing",
       {"a hung job (dead rank, deadlock) or a forgotten notebook kernel: check the process and stop it",
        "py-spy dump --pid PID shows where a Python process is stuck"}},
      {Kind::StuckKernel, "stuck_kernel", "A kernel spins: utilization pinned at 100 % at near-idle power",
       {"typical of an NCCL collective after a rank died or hung: check the other ranks and their logs",
        "set TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a shorter timeout so the job fails fast",
        "py-spy dump --pid PID on each rank shows which collective waits"}},
      {Kind::UnattributedMemory, "unattributed_memory", "GPU memory in use that no visible process accounts for",
       {"processes of other containers are not visible: run with --pid=host to see them",
        "otherwise a leaked context or a zombie process: check nvidia-smi and fuser -v /dev/nvidia*"}},
      {Kind::EccUncorrectable, "ecc_uncorrectable", "Uncorrectable ECC errors",
       {"the job on this GPU may have computed wrong results or crashed: restart it elsewhere",
        "drain the GPU and reset it (nvidia-smi -r); replace it if errors return"}},
      {Kind::RowRemap, "row_remap", "Memory rows remapped",
       {"a pending remap needs a GPU reset to take effect (nvidia-smi -r)",
        "a remapping failure means the GPU should be replaced (RMA)"}},
      {Kind::Xid, "xid", "The driver reported an Xid error",
       {"see the Xid's meaning in the finding; NVIDIA's Xid catalog says what to do for each"}},
      {Kind::GpuLost, "gpu_lost", "The GPU fell off the bus",
       {"drain the node and reboot it; check the GPU's seating, power and the PCIe/NVLink links",
        "replace the GPU if it happens again"}},
      {Kind::RecoveryAction, "recovery_action", "The driver asks for a recovery action",
       {"do what the driver asks: drain the GPU, then reset it (nvidia-smi -r) or reboot the node"}},
      {Kind::PcieDegraded, "pcie_degraded", "PCIe link below its maximum under load",
       {"reseat the GPU or the riser; check the slot's BIOS settings (link speed)",
        "compare with the other GPUs of the node: a single slow link slows every collective"}},
      {Kind::CollectiveHang, "collective_hang", "The ranks of one job spin in a collective that never completes",
       {"find the rank that died or hung: its log ends first (an exception, an OOM, a lost node); the others only wait",
        "set TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and a shorter timeout (init_process_group(timeout=...)) so the job fails fast",
        "py-spy dump --pid PID on each rank shows which collective waits; NCCL_DEBUG=INFO logs the last one"}},
  };
  return kTable;
}

}  // namespace

std::span<const KindInfo> kind_table() { return table(); }
const KindInfo& kind_info(Kind kind) { return table()[static_cast<std::size_t>(kind)]; }
std::string_view kind_id(Kind kind) { return kind_info(kind).id; }

std::string_view kind_phrase(Kind kind) {
  switch (kind) {
    case Kind::InputStarved: return "input starvation";
    case Kind::LaunchBound: return "launch-bound kernels";
    case Kind::LowUtilization: return "low utilization";
    case Kind::Imbalance: return "uneven load";
    case Kind::ThermalThrottle: return "thermal throttling";
    case Kind::PowerCap: return "power capping";
    case Kind::OtherThrottle: return "clocks held down";
    case Kind::MemoryLeak: return "memory leak";
    case Kind::MemoryPressure: return "memory almost full";
    case Kind::IdleProcess: return "idle process holding memory";
    case Kind::StuckKernel: return "stuck kernel";
    case Kind::UnattributedMemory: return "unattributed memory";
    case Kind::EccUncorrectable: return "uncorrectable ECC errors";
    case Kind::RowRemap: return "memory rows remapped";
    case Kind::Xid: return "Xid errors";
    case Kind::GpuLost: return "GPU lost";
    case Kind::RecoveryAction: return "recovery action asked";
    case Kind::PcieDegraded: return "PCIe link degraded";
    case Kind::CollectiveHang: return "collective hang";
  }
  return kind_id(kind);
}

std::optional<Kind> kind_of_id(std::string_view id) {
  for (const auto& info : table())
    if (info.id == id) return info.kind;
  return std::nullopt;
}

std::vector<std::string> default_advice(Kind kind) {
  std::vector<std::string> out;
  for (auto a : kind_info(kind).advice) out.emplace_back(a);
  return out;
}

}  // namespace gpuwatch::diagnose
