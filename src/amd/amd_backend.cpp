#include "amd/amd_backend.hpp"

#include <cerrno>
#include <chrono>

#include <fmt/core.h>

#include "amd/amd_errors.hpp"
#include "amd/amd_field_readers.hpp"
#include "amd/sysfs_file.hpp"

namespace gpuwatch::amd {
namespace {

// AMD has no profiling metrics nor sample buffer in its files: a reader that leaves them absent.
class NoProfiling final : public backend::ProfilingReader {
 public:
  void read(backend::DeviceHandle, core::DeviceSnapshot&) override {}
  void read_sample_buffer(backend::DeviceHandle, core::DeviceSnapshot&, std::chrono::system_clock::time_point) override {}
};

// amdgpu has no Xid-like event stream in its files: a source that never has an event.
class NoAmdEvents final : public backend::EventSource {
 public:
  std::vector<unsigned> watched_gpus() const override { return {}; }
  Wait wait(unsigned, backend::DeviceEvent&) override { return Wait::TimedOut; }
};

}  // namespace

AmdBackend::AmdBackend(std::string root, std::vector<AmdCard> cards, std::shared_ptr<backend::SimulatedTree> tree)
    : root_(std::move(root)), cards_(std::move(cards)), tree_(std::move(tree)), scanner_(root_) {
  process_readers_.reserve(cards_.size());
  for (std::size_t i = 0; i < cards_.size(); ++i) process_readers_.push_back(std::make_unique<CardProcessReader>());
}

std::string AmdBackend::describe() const { return "amdgpu (" + under_root(root_, "/sys/class/drm") + ")"; }

core::ReadError AmdBackend::checked(core::ReadError error) const {
  if (!error.ok() && error.reason != core::ErrorReason::NotSupported) {
    last_failure_.store(error.vendor_code, std::memory_order_relaxed);
  }
  return error;
}

const AmdCard* AmdBackend::card_of(backend::DeviceHandle dev) const { return static_cast<const AmdCard*>(dev.raw); }

void AmdBackend::refresh() const {
  if (tree_) tree_->refresh();
}

long long AmdBackend::now_ms() const {
  const long long sim = sim_clock_ms_.load(std::memory_order_relaxed);
  if (sim != 0) return sim;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

core::ReadError AmdBackend::device_count(unsigned* count) const {
  *count = static_cast<unsigned>(cards_.size());
  return {};
}

core::ReadError AmdBackend::handle_by_index(unsigned index, backend::DeviceHandle* handle) const {
  if (index >= cards_.size()) {
    *handle = {};
    return checked(error_of_reason(core::ErrorReason::NotFound));
  }
  *handle = backend::DeviceHandle{this, &cards_[index]};
  return {};
}

core::ReadError AmdBackend::read_source(backend::DeviceHandle dev, core::Source source,
                                        std::span<const core::FieldId> fields, core::DeviceSnapshot& device) const {
  const AmdCard* card = card_of(dev);
  if (card == nullptr) return checked(error_of_reason(core::ErrorReason::NotFound));
  refresh();
  return checked(read_card_source(*card, source, fields, device));
}

core::ReadError AmdBackend::read_processes(backend::DeviceHandle dev, unsigned long long* utilization_since_us,
                                           core::DeviceSnapshot& device) const {
  const AmdCard* card = card_of(dev);
  if (card == nullptr) return checked(error_of_reason(core::ErrorReason::NotFound));
  refresh();
  const long long clock = sim_clock_ms_.load(std::memory_order_relaxed);
  const auto scan = scanner_.scan(clock, now_ms());
  const auto index = static_cast<std::size_t>(card - cards_.data());
  process_readers_[index]->read(*card, *scan, utilization_since_us, root_, device);
  return checked(device.processes_error);
}

core::ReadError AmdBackend::driver_version(std::string& out) const {
  int err = 0;
  auto version = read_text_file(under_root(root_, "/sys/module/amdgpu/version"), &err);
  if (!version || trimmed(*version).empty()) version = read_text_file(under_root(root_, "/proc/sys/kernel/osrelease"), &err);
  if (!version || trimmed(*version).empty()) return checked(error_from_errno(err != 0 ? err : ENOENT));
  out = std::string(trimmed(*version));
  return {};
}

core::ReadError AmdBackend::cuda_driver_version(int* /*version*/) const {
  return error_of_reason(core::ErrorReason::NotSupported);
}

std::string AmdBackend::error_text(core::ReadError error) const { return amd_error_text(error); }

core::ReadError AmdBackend::error_of(core::ErrorReason reason) const { return error_of_reason(reason); }

core::ReadError AmdBackend::last_error() const {
  const int code = last_failure_.load(std::memory_order_relaxed);
  return code == 0 ? core::ReadError{} : error_from_errno(code - core::kAmdCodeBase);
}

std::unique_ptr<backend::ProfilingReader> AmdBackend::profiling_reader(unsigned /*index*/) const {
  return std::make_unique<NoProfiling>();
}

std::unique_ptr<backend::EventSource> AmdBackend::open_events(unsigned /*gpu_count*/) const {
  return std::make_unique<NoAmdEvents>();
}

bool AmdBackend::set_sim_clock(long long unix_ms) const {
  if (!tree_) return false;
  tree_->set_clock(unix_ms);
  sim_clock_ms_.store(unix_ms, std::memory_order_relaxed);
  return true;
}

bool AmdBackend::has_sim_clock() const { return tree_ != nullptr; }

std::optional<double> AmdBackend::sim_time_scale() const { return tree_ ? tree_->time_scale() : std::nullopt; }

core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options) {
  if (options.simulated_tree) options.simulated_tree->refresh();  // the files exist before discovery
  std::vector<AmdCard> cards = discover_amd_cards(options.host_root);
  if (cards.empty()) {
    return core::make_error(fmt::format("no AMD GPU: no card under {} has DRIVER=amdgpu (is the amdgpu driver loaded?)",
                                        under_root(options.host_root, "/sys/class/drm")),
                            ENODEV);
  }
  return std::unique_ptr<backend::DeviceBackend>(
      std::make_unique<AmdBackend>(options.host_root, std::move(cards), options.simulated_tree));
}

}  // namespace gpuwatch::amd
