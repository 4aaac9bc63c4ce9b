#pragma once
// The simulator's GPM model (NVML GPU Performance Monitoring, Hopper and later): profiling
// activity derived deterministically from the phase's load. Training keeps the tensor
// pipes busy; small kernels leave most SMs idle; memory-bound work saturates DRAM with
// little tensor work; data-loader starvation averages low because the GPU waits; a hung
// or idle GPU does nothing. A MIG GPU instance follows its GPU's phase while it hosts
// processes and is idle otherwise. Metrics are means over the window between two samples.
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {

// Percent 0..100 of time/cycles/bandwidth, as NVML's GPM metrics; PCIe in MiB/s.
struct GpmActivity {
  double graphics = 0, sm = 0, sm_occupancy = 0, integer = 0;
  double tensor_any = 0, tensor_dfma = 0, tensor_hmma = 0, tensor_imma = 0;
  double dram = 0, fp64 = 0, fp32 = 0, fp16 = 0;
  double pcie_tx_mib_s = 0, pcie_rx_mib_s = 0;
};

// GPM exists on compute capability 9.0 (Hopper) and newer.
bool gpm_supported(const Simulation& sim, unsigned gpu);

// Activity of GPU at scenario time T: the whole GPU (gpu_instance_id < 0), or its MIG GPU
// instance with that id (idle when no instance with that id hosts processes).
GpmActivity gpm_activity(const Simulation& sim, unsigned gpu, int gpu_instance_id, double t);

// Mean activity over the window between T1 and T2 (either order; equal times: the
// activity at that moment).
GpmActivity gpm_average(const Simulation& sim, unsigned gpu, int gpu_instance_id, double t1, double t2);

}  // namespace gpuwatch::sim
