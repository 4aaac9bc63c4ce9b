#pragma once
// What the simulated AMD and Intel cards' kernel files hold at one moment: pure functions from the
// simulation's values to (file name, content) pairs, in the kernel's formats (docs/simulator.md,
// "The AMD and Intel file tree (issue 28)"). vendor_tree.hpp writes them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/engine/vendor_tree.hpp"

namespace gpuwatch::sim::vendor_files {

struct FileContent {
  std::string name;  // relative to the card's folder (ROOT/sys/class/drm/cardN)
  std::string text;
};
using Files = std::vector<FileContent>;

// The card's files written once (identity, limits, hwmon names and labels).
Files static_files(const Simulation& sim, const VendorCard& card);
// Its files at scenario time T, from S (Simulation::evaluate at T); EPOCH_MS: Unix ms of time 0.
Files dynamic_files(const Simulation& sim, const VendorCard& card, const DynamicSample& s, double t,
                    std::int64_t epoch_ms);

// fdinfo/<kFdBase + card>: one DRM file per card and process.
inline constexpr int kFdBase = 10;
// One process's DRM file as the card's driver prints it (drm-usage-stats.rst and the driver's own
// page): BUSY_S is its share of the engine's busy wall seconds so far, WALL_S the wall seconds
// since scenario time 0.
std::string fdinfo_text(const VendorCard& card, const std::string& slot, unsigned client_id, bool compute, double busy_s,
                        double wall_s, double memory_mib);

// The wall seconds since scenario time 0 at scenario time T (T / time_scale).
double wall_seconds(const Simulation& sim, double t);
// A static value of GPU as a number; nullopt when absent, an error or text.
std::optional<double> static_number(const Simulation& sim, unsigned gpu, Key key);

}  // namespace gpuwatch::sim::vendor_files
