#pragma once
// What the three scrolling/redrawing commands (status -i, dmon, pmon) share: the
// NVML library opened with the loader's own message on failure, a fixed-rate tick
// that does not drift, and parsing of `-i 0,2,3` GPU lists.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/global_options.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "nvml/nvml_library.hpp"

namespace gpuwatch::cli {

// Opens NVML as GlobalOptions says. On failure prints the loader's message (what is
// missing, what to check) on stderr and returns nullptr: exit with kExitNvmlUnavailable.
std::unique_ptr<nvml::NvmlLibrary> open_nvml_for_command(const GlobalOptions& global);

// Sleeps until the next multiple of PERIOD after the start (not PERIOD after the
// end of the previous sample, so slow samples do not make the rate drift).
class Ticker {
 public:
  explicit Ticker(std::chrono::duration<double> period);
  void wait();

  // The tick to sleep until: the first one after NOW on the grid NEXT + k * PERIOD,
  // so that a slow sample skips ticks instead of shifting every later one.
  static std::chrono::steady_clock::time_point next_tick(std::chrono::steady_clock::time_point next,
                                                         std::chrono::steady_clock::time_point now,
                                                         std::chrono::steady_clock::duration period);

 private:
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point next_;
};

// "0,2,3" -> {0, 2, 3}. Error for anything that is not a GPU index.
core::Result<std::vector<unsigned>> parse_gpu_indices(const std::string& list);

// `-i` as nvidia-smi takes it: comma separated indices, UUIDs ("GPU-...", a unique
// prefix is enough) or PCI bus ids ("00000000:18:00.0", also without the domain).
// IDENTITIES is a snapshot with Uuid and PciBusId read for every GPU.
core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const core::Snapshot& identities);

// Samples the identity fields and resolves LIST (empty list: all GPUs, empty result).
core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const nvml::NvmlApi& api);

}  // namespace gpuwatch::cli
