#include "intel/intel_backend.hpp"

#include <cerrno>
#include <cstdlib>
#include <thread>
#include <sys/utsname.h>

#include <fmt/format.h>

#include "intel/intel_errors.hpp"
#include "intel/sysfs_file.hpp"

namespace gpuwatch::intel {
namespace {

// Reads nothing: Intel has no profiling metrics, sample buffer or MIG here.
class IntelProfilingReader final : public backend::ProfilingReader {
 public:
  void read(backend::DeviceHandle, core::DeviceSnapshot&) override {}
  void read_sample_buffer(backend::DeviceHandle, core::DeviceSnapshot&, std::chrono::system_clock::time_point) override {}
};

class IntelNoEvents final : public backend::EventSource {
 public:
  std::vector<unsigned> watched_gpus() const override { return {}; }
  Wait wait(unsigned, backend::DeviceEvent&) override { return Wait::TimedOut; }
};

// DRM clients seen within this long of a scan share it (one sample's reads of every card).
constexpr auto kScanReuse = std::chrono::milliseconds(100);
// How long after the baselines the first rates are read: more than the power's shortest interval
// (card_reader.cpp) and than the simulated tree's refresh period (100 ms), so that the files moved.
constexpr auto kBaselineWait = std::chrono::milliseconds(150);

LevelZeroUse open_level_zero(const std::string& path, const SysmanFunctions* fakes) {
  LevelZeroUse use;
  if (fakes == nullptr && path == "none") {
    use.note = "Level Zero not used (GPUWATCH_ZE_LIBRARY=none)";
    return use;
  }
  std::string where = "Level Zero function table";
  if (fakes != nullptr) {
    use.functions = *fakes;
  } else {
    auto library = LevelZeroLibrary::open(path);
    if (!library) {
      use.note = "Level Zero not used: " + library.error().message;
      return use;
    }
    use.library = std::move(*library);
    use.functions = use.library->functions();
    where = use.library->path();
  }
  auto session = open_sysman(use.functions);
  if (!session) {
    use.note = fmt::format("Level Zero not used: {}: {}", where, session.error().message);
    return use;
  }
  use.note = fmt::format("Level Zero {} (driver version {}, {} device(s))", where,
                         session->driver_version.empty() ? "unknown" : session->driver_version, session->devices.size());
  use.session = std::move(*session);
  return use;
}

}  // namespace

IntelBackend::IntelBackend(std::string root, std::vector<IntelCard> cards, LevelZeroUse level_zero,
                           std::shared_ptr<backend::SimulatedTree> simulated_tree)
    : root_(std::move(root)), level_zero_(std::move(level_zero)), simulated_tree_(std::move(simulated_tree)) {
  for (auto& card : cards) {
    auto dev = std::make_unique<Device>();
    dev->card = std::move(card);
    if (level_zero_.session) dev->sysman = find_sysman_device(*level_zero_.session, dev->card.address);
    devices_.push_back(std::move(dev));
  }
  // A simulation started on a frozen clock (GPUWATCH_SIM_CLOCK_MS): its files show that moment.
  if (simulated_tree_) {
    if (const char* frozen = std::getenv("GPUWATCH_SIM_CLOCK_MS"); frozen != nullptr && *frozen != '\0') {
      sim_clock_ms_.store(std::strtoll(frozen, nullptr, 10), std::memory_order_relaxed);
    }
  }
  take_baselines();
}

void IntelBackend::take_baselines() {
  if (sim_clock_ms_.load(std::memory_order_relaxed) != 0) return;
  if (simulated_tree_) simulated_tree_->set_clock(0);  // files of this very moment, not of the last refresh
  static constexpr core::FieldId kRates[] = {core::FieldId::PowerDraw, core::FieldId::UtilizationGpu};
  for (unsigned i = 0; i < devices_.size(); ++i) {
    core::DeviceSnapshot scratch;
    const backend::DeviceHandle handle{this, devices_[i].get()};
    static_cast<void>(read_source(handle, core::Source::PowerUsage, std::span(kRates, 1), scratch));
    static_cast<void>(read_source(handle, core::Source::UtilizationRates, std::span(kRates + 1, 1), scratch));
    std::lock_guard lock(devices_[i]->state.mutex);
    static_cast<void>(fold_drm_usage(*devices_[i]));  // per-process utilization too
  }
  {
    std::lock_guard lock(scan_mutex_);
    scanned_at_ = {};  // the first sample scans anew
  }
  last_failure_.store(0, std::memory_order_relaxed);
  baselines_ready_ = std::chrono::steady_clock::now() + kBaselineWait;
}

void IntelBackend::await_baselines() const {
  if (sim_clock_ms_.load(std::memory_order_relaxed) != 0) return;
  if (std::chrono::steady_clock::now() < baselines_ready_) std::this_thread::sleep_until(baselines_ready_);
}

std::string IntelBackend::describe() const {
  unsigned matched = 0;
  for (const auto& d : devices_) matched += d->sysman != nullptr ? 1 : 0;
  std::string out = fmt::format("Intel i915/xe files under {}", root_);
  if (level_zero_.session) {
    return out + fmt::format("; {}; {} of {} GPU(s) matched", level_zero_.note, matched, devices_.size());
  }
  return out + "; " + level_zero_.note;
}

core::ReadError IntelBackend::noted(core::ReadError error) const {
  if (!error.ok()) last_failure_.store(error.vendor_code, std::memory_order_relaxed);
  return error;
}

core::ReadError IntelBackend::device_count(unsigned* count) const {
  *count = static_cast<unsigned>(devices_.size());
  return {};
}

core::ReadError IntelBackend::handle_by_index(unsigned index, backend::DeviceHandle* handle) const {
  *handle = {};
  if (index >= devices_.size()) return noted(intel_error_of(core::ErrorReason::NotFound));
  const Device& dev = *devices_[index];
  // A card that left the bus (unbound, fell off) takes its sysfs directory with it.
  if (!path_exists(dev.card.card_dir + "/device/uevent")) return noted(error_from_errno(ENODEV));
  *handle = backend::DeviceHandle{this, &dev};
  return {};
}

core::ReadError IntelBackend::driver_version(std::string& out) const {
  const char* driver = devices_.empty() ? "i915" : to_string(devices_.front()->card.driver);
  const std::string module = under_root(root_, fmt::format("/sys/module/{}/version", driver));
  if (auto v = read_text_file(module); v.value && !v.value->empty()) {
    out = *v.value;
    return {};
  }
  if (auto v = read_text_file(under_root(root_, "/proc/sys/kernel/osrelease")); v.value && !v.value->empty()) {
    out = *v.value;
    return {};
  }
  struct utsname names {};
  if (::uname(&names) != 0) return noted(error_from_errno(errno));
  out = names.release;
  return {};
}

core::ReadError IntelBackend::cuda_driver_version(int* /*version*/) const {
  return intel_error_of(core::ErrorReason::NotSupported);
}

std::string IntelBackend::error_text(core::ReadError error) const { return intel_error_text(error.vendor_code); }

core::ReadError IntelBackend::error_of(core::ErrorReason reason) const { return intel_error_of(reason); }

core::ReadError IntelBackend::last_error() const {
  const int code = last_failure_.load(std::memory_order_relaxed);
  if (code == 0) return {};
  return code >= 0x70000000 ? error_from_ze(static_cast<ze_result_t>(code)) : error_from_errno(code - core::kIntelCodeBase);
}

std::unique_ptr<backend::ProfilingReader> IntelBackend::profiling_reader(unsigned /*index*/) const {
  return std::make_unique<IntelProfilingReader>();
}

std::unique_ptr<backend::EventSource> IntelBackend::open_events(unsigned /*gpu_count*/) const {
  return std::make_unique<IntelNoEvents>();
}

bool IntelBackend::set_sim_clock(long long unix_ms) const {
  if (!simulated_tree_) return false;
  if (sim_clock_ms_.exchange(unix_ms, std::memory_order_relaxed) == 0 && unix_ms != 0) {
    for (const auto& dev : devices_) {  // readings on the real clock do not compare with the simulated one
      std::lock_guard lock(dev->state.mutex);
      dev->state.energy_uj = {};
      dev->state.sysman_energy.reset();
      dev->state.sysman_power_w.reset();
      dev->state.engines.reset();
      dev->state.engine_ratio.reset();
      dev->state.usage = {};
    }
  }
  simulated_tree_->set_clock(unix_ms);
  return true;
}

bool IntelBackend::has_sim_clock() const { return simulated_tree_ != nullptr; }

std::optional<double> IntelBackend::sim_time_scale() const {
  return simulated_tree_ ? simulated_tree_->time_scale() : std::nullopt;
}

double IntelBackend::clock_seconds() const {
  const long long sim_ms = sim_clock_ms_.load(std::memory_order_relaxed);
  if (sim_ms != 0) return static_cast<double>(sim_ms) / 1e3;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch());
  return static_cast<double>(us.count()) / 1e6;
}

std::shared_ptr<const DrmScan> IntelBackend::drm_scan(std::uint64_t* generation) const {
  std::lock_guard lock(scan_mutex_);
  const auto now = std::chrono::steady_clock::now();
  const long long sim_ms = sim_clock_ms_.load(std::memory_order_relaxed);
  // A simulated clock moved (sim record's next sample): the files changed, whatever the wall clock says.
  if (!scan_ || now - scanned_at_ > kScanReuse || sim_ms != scanned_sim_ms_) {
    scan_ = std::make_shared<const DrmScan>(scan_drm_clients(under_root(root_, "/proc")));
    scanned_at_ = now;
    scanned_sim_ms_ = sim_ms;
    ++scan_generation_;
  }
  *generation = scan_generation_;
  return scan_;
}

core::Result<std::unique_ptr<IntelBackend>> open_intel_backend(const backend::OpenOptions& options,
                                                                const SysmanFunctions* sysman) {
  if (options.simulated_tree) options.simulated_tree->refresh();
  auto cards = discover_intel_cards(options.host_root);
  if (cards.empty()) {
    return core::make_error(fmt::format("no i915 or xe GPU under {}",
                                        under_root(options.host_root, "/sys/class/drm")));
  }
  LevelZeroUse level_zero = open_level_zero(options.level_zero_library, sysman);
  return std::make_unique<IntelBackend>(options.host_root, std::move(cards), std::move(level_zero), options.simulated_tree);
}

core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options) {
  auto backend = open_intel_backend(options);
  if (!backend) return backend.error();
  return std::unique_ptr<backend::DeviceBackend>(std::move(*backend));
}

}  // namespace gpuwatch::intel
