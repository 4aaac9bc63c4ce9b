// The simulated AMD and Intel cards' files written under the host root (vendor_tree.hpp); what
// they hold is vendor_files.cpp's.
#include "sim/engine/vendor_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>
#include <utility>

#include "sim/engine/vendor_files.hpp"

namespace gpuwatch::sim {

namespace fs = std::filesystem;
using namespace vendor_files;

VendorTree::VendorTree(const Simulation& sim, fs::path root, std::int64_t epoch_ms)
    : sim_(sim), root_(std::move(root)), epoch_ms_(epoch_ms), cards_(vendor_cards(sim.scenario())),
      busy_(sim.gpu_count()) {}

double VendorTree::scenario_time_of(std::int64_t unix_ms) const {
  return static_cast<double>(unix_ms - epoch_ms_) / 1000.0 * sim_.scenario().time_scale;
}

core::Result<void> VendorTree::render_at_unix_ms(std::int64_t unix_ms) { return render_at(scenario_time_of(unix_ms)); }

double VendorTree::busy_wall_seconds(unsigned g, double t) {
  if (t <= 0) return 0;
  const auto& gpu = sim_.scenario().gpus[g];
  double busy_s = 0;
  if (gpu.phases.empty()) {  // a static GPU: its utilization as written, all along
    busy_s = static_number(sim_, g, Key::UtilizationGpu).value_or(0) / 100 * t;
  } else {
    // Sample k of the driver's buffer is the busy share of [(k-1) P, k P); the part of the
    // current period so far counts at the share of the period it belongs to.
    const double p = sim_.sample_period_s(g);
    const std::int64_t whole = sim_.period_index(g, t);
    BusyIntegral& acc = busy_[g];
    if (whole < acc.period) acc = BusyIntegral{};  // time went backwards: sum again from 0
    constexpr std::int64_t kMaxSteps = 2'000'000;  // a far epoch in coarser steps, like the energy counter
    const std::int64_t stride = std::max<std::int64_t>(1, (whole - acc.period) / kMaxSteps);
    while (acc.period < whole) {
      const std::int64_t n = std::min(stride, whole - acc.period);
      acc.busy_s += sim_.period_sample(g, acc.period + 1).util / 100 * p * static_cast<double>(n);
      acc.period += n;
    }
    const double partial = std::max(0.0, t - static_cast<double>(whole) * p);
    busy_s = acc.busy_s + sim_.period_sample(g, whole + 1).util / 100 * partial;
  }
  return wall_seconds(sim_, busy_s);
}

bool VendorTree::write_file(const fs::path& path, const std::string& content) { return writer_.write(path, content); }

bool VendorTree::render_static(const VendorCard& card) {
  const fs::path dir = root_ / "sys/class/drm" / fmt::format("card{}", card.card);
  const Files files = static_files(sim_, card);
  bool ok = true;
  for (const auto& f : files) ok = write_file(dir / f.name, f.text) && ok;
  return ok;
}

bool VendorTree::render_dynamic(const VendorCard& card, double t) {
  const fs::path dir = root_ / "sys/class/drm" / fmt::format("card{}", card.card);
  DynamicSample s;
  sim_.evaluate(card.gpu, t, s);
  const Files files = dynamic_files(sim_, card, s, t, epoch_ms_);
  bool ok = true;
  std::error_code ec;
  for (const auto& f : files) {
    if (s.lost) fs::remove(dir / f.name, ec);  // a GPU off the bus: its readings are gone
    else ok = write_file(dir / f.name, f.text) && ok;
  }
  if (s.lost) return ok;
  // The processes' DRM files: one per process with a PID, visible now.
  const auto& procs = sim_.scenario().gpus[card.gpu].processes;
  if (procs.empty()) return ok;
  const double busy = busy_wall_seconds(card.gpu, t);
  const double share = 1.0 / static_cast<double>(procs.size());
  const std::string slot = sysfs_pci_slot(sim_.static_value(card.gpu, Key::PciBusId).text);
  for (std::size_t i = 0; i < procs.size(); ++i) {
    const unsigned pid = sim_.live_pid(card.gpu, i);
    if (pid == 0) continue;
    const auto it = std::find_if(s.processes.begin(), s.processes.end(),
                                 [&](const ProcessSample& p) { return p.pid == pid && p.mig < 0; });
    if (it == s.processes.end()) continue;
    const unsigned client_id = card.card * 100 + static_cast<unsigned>(i) + 1;
    const fs::path path = root_ / "proc" / std::to_string(pid) / "fdinfo" / std::to_string(kFdBase + static_cast<int>(card.card));
    ok = write_file(path, fdinfo_text(card, slot, client_id, procs[i].compute, busy * share, wall_seconds(sim_, t),
                                      it->memory_mib)) &&
         ok;
    fdinfo_now_.insert(path);
  }
  return ok;
}

core::Result<void> VendorTree::render_at(double t) {
  bool ok = true;
  if (!static_written_) {
    for (const auto& card : cards_) ok = render_static(card) && ok;
    static_written_ = ok;
  }
  fdinfo_now_.clear();
  for (const auto& card : cards_) ok = render_dynamic(card, t) && ok;
  std::error_code ec;
  for (const auto& path : fdinfo_written_)
    if (!fdinfo_now_.contains(path)) fs::remove(path, ec);  // a process gone (or hidden) since
  fdinfo_written_.swap(fdinfo_now_);
  if (!ok) return core::make_error(fmt::format("cannot write the simulated AMD/Intel files under {}", root_.string()));
  return {};
}

}  // namespace gpuwatch::sim
