#pragma once
// The built-in model catalog (NVIDIA figures from nvml.md §8, AMD and Intel ones from the
// vendors' product pages, docs/simulator.md): the default value of every query key for each
// model, including the keys a model lacks ("[N/A]").
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

struct ModelSpec {
  std::string_view id;         // catalog name used in scenarios, e.g. "H100 SXM 80GB"
  std::string_view nvml_name;  // what nvmlDeviceGetName returns
  unsigned device_id;          // PCI device id (upper 16 bits of pciDeviceId)
  unsigned subsystem_id;       // pciSubSystemId
  double memory_total_mib, memory_reserved_mib;
  double power_default_w, power_min_w, power_max_w, power_idle_w;
  double clock_gfx_max, clock_mem_max, clock_video_max, clock_gfx_idle, clock_mem_idle;
  double temp_shutdown, temp_slowdown, temp_gpu_max, temp_mem_max;  // 0: not reported
  double temp_idle;
  unsigned pcie_gen_max, pcie_width_max, pcie_gen_idle;
  unsigned sm_count, cores;
  std::string_view compute_cap, architecture, brand, vbios;
  bool fan, ecc, hbm, geforce, mig_capable, remapped_rows, retired_pages, jpeg_ofa;
  double bar1_mib;
  std::string_view part_number;
  // Whose GPU it is: NVIDIA (served through the simulated NVML driver), AMD or Intel (served as
  // kernel files, and Intel's through the simulated Level Zero driver too). For AMD and Intel
  // boards `geforce` means a consumer board (no serial, 1 s sample period) and the NVIDIA-only
  // keys (inforom, applications clocks, BAR1, MIG, fabric, recovery action) are [N/A].
  core::Vendor vendor = core::Vendor::Nvidia;
};

// The PCI vendor id of VENDOR's GPUs: 0x10DE, 0x1002, 0x8086.
unsigned pci_vendor_id(core::Vendor vendor);

const std::vector<ModelSpec>& model_catalog();
// The utilization sample period of MODEL in seconds. NVML documents only the range ("between 1
// second and 1/6 second, depending on the product", nvmlUtilization_t); the simulator takes 1/6 s
// for data-center boards (the period their encoder/decoder calls report, 167000 us) and 1 s for
// GeForce boards (the other end of the range). docs/simulator.md, "Sample periods".
double model_sample_period_s(const ModelSpec& model);
// Accepts the catalog id, the NVML name or a short alias ("h100", "a100-80gb", "rtx4090"),
// case-insensitively. nullptr when unknown.
const ModelSpec* find_model(std::string_view name);
std::string catalog_names();  // "H100 SXM 80GB, H200, ..." for error messages

// Default values of every key for MODEL as GPU number INDEX of a scenario with SEED.
ValueMap model_defaults(const ModelSpec& model, unsigned index, std::uint64_t seed);
// Defaults for a GPU without a model (imports of boards outside the catalog): the vendor's first
// catalog model with what only a known model can tell unknown.
ValueMap generic_defaults(unsigned index, std::uint64_t seed, core::Vendor vendor = core::Vendor::Nvidia);

}  // namespace gpuwatch::sim
