#pragma once
// The simulated AMD and Intel GPUs as the kernel shows them: the sysfs, hwmon and DRM fdinfo files
// of the contract (docs/simulator.md, "The AMD and Intel file tree (issue 28)") written under a
// root folder (the simulated host root, GPUWATCH_HOST_ROOT) from the scenario's values at one
// moment. Static files (identity, limits, labels) are written by the first render, the others at
// every render; each file is replaced atomically (a temporary name in its folder, then rename),
// so a reader never sees half a file.
//
// Cards: the AMD GPUs first (card0..), then the Intel ones, each in scenario order. Counters that
// a reader turns into rates against its own clock (fdinfo engine time and cycles, energy) run on
// the wall clock, scenario seconds / time_scale, so the rates come out as the scenario's values
// at any time scale; each is a function of the time alone (re-rendering any moment gives the
// same value, and a later moment never a smaller one).
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/read_error.hpp"
#include "core/result.hpp"
#include "sim/engine/atomic_file_writer.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {

// What the kernel driver of a card is.
enum class KernelDriver { Amdgpu, I915, Xe };
const char* kernel_driver_name(KernelDriver driver);  // "amdgpu", "i915", "xe"

struct VendorCard {
  unsigned gpu = 0;   // scenario index
  unsigned card = 0;  // N of /sys/class/drm/cardN
  core::Vendor vendor = core::Vendor::Amd;
  KernelDriver driver = KernelDriver::Amdgpu;
};

// The scenario's AMD and Intel GPUs as cards, in card order. Intel boards run i915 except the
// models xe drives by default (Arc A770 here: vendor_tree.cpp's table).
std::vector<VendorCard> vendor_cards(const Scenario& scenario);

// "00000000:C1:00.0" -> "0000:c1:00.0", as sysfs' PCI_SLOT_NAME and fdinfo's drm-pdev write it.
std::string sysfs_pci_slot(const std::string& bus_id);

class VendorTree {
 public:
  // SIM must outlive the tree. EPOCH_MS: the Unix time in ms of scenario time 0.
  VendorTree(const Simulation& sim, std::filesystem::path root, std::int64_t epoch_ms);

  bool empty() const { return cards_.empty(); }
  const std::vector<VendorCard>& cards() const { return cards_; }
  const std::filesystem::path& root() const { return root_; }

  // Writes every file as it is at scenario time T (seconds). Not thread-safe (one caller at a time).
  core::Result<void> render_at(double t);
  // The same at Unix time UNIX_MS: scenario time (UNIX_MS - epoch) / 1000 * time_scale.
  core::Result<void> render_at_unix_ms(std::int64_t unix_ms);
  double scenario_time_of(std::int64_t unix_ms) const;

  // Busy seconds of GPU's engine from scenario time 0 to T, on the wall clock (scenario busy
  // seconds / time_scale): the integral of the driver's utilization samples. Monotonic in T.
  double busy_wall_seconds(unsigned gpu, double t);

 private:
  struct BusyIntegral {
    std::int64_t period = 0;  // periods summed so far
    double busy_s = 0;        // scenario busy seconds over them
  };
  bool render_static(const VendorCard& card);
  bool render_dynamic(const VendorCard& card, double t);
  bool write_file(const std::filesystem::path& path, const std::string& content);

  const Simulation& sim_;
  std::filesystem::path root_;
  std::int64_t epoch_ms_;
  std::vector<VendorCard> cards_;
  std::vector<BusyIntegral> busy_;  // by scenario GPU index
  bool static_written_ = false;
  std::set<std::filesystem::path> fdinfo_written_;  // the fdinfo files of the last render
  std::set<std::filesystem::path> fdinfo_now_;      // those of this one
  AtomicFileWriter writer_;  // each file replaced atomically
};

}  // namespace gpuwatch::sim
