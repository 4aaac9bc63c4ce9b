#include "backend/backends.hpp"

#include <algorithm>

namespace gpuwatch::backend {
namespace {

constexpr core::ReadError kNoBackend{core::ErrorReason::Uninitialized, 0};

// Events of several backends: each waited on in turn with a share of the timeout, their
// devices shifted to global indices.
class MergedEvents final : public EventSource {
 public:
  void add(std::unique_ptr<EventSource> source, unsigned offset) { sources_.push_back({std::move(source), offset}); }

  std::vector<unsigned> watched_gpus() const override {
    std::vector<unsigned> out;
    for (const auto& [source, offset] : sources_) {
      for (unsigned gpu : source->watched_gpus()) out.push_back(gpu + offset);
    }
    return out;
  }

  Wait wait(unsigned timeout_ms, DeviceEvent& event) override {
    if (sources_.empty()) return Wait::TimedOut;
    const unsigned share = timeout_ms / static_cast<unsigned>(sources_.size());
    Wait worst = Wait::TimedOut;
    for (std::size_t k = 0; k < sources_.size(); ++k) {
      auto& [source, offset] = sources_[(next_ + k) % sources_.size()];
      const Wait got = source->wait(share, event);
      if (got == Wait::Event) {
        event.gpu += offset;
        next_ = (next_ + k + 1) % sources_.size();  // the others first next time
        return got;
      }
      if (got == Wait::Failed || (got == Wait::Skipped && worst == Wait::TimedOut)) worst = got;
    }
    return worst;
  }

 private:
  std::vector<std::pair<std::unique_ptr<EventSource>, unsigned>> sources_;
  std::size_t next_ = 0;
};

class NoEvents final : public EventSource {
 public:
  std::vector<unsigned> watched_gpus() const override { return {}; }
  Wait wait(unsigned, DeviceEvent&) override { return Wait::TimedOut; }
};

}  // namespace

Backends::Backends(std::vector<std::unique_ptr<DeviceBackend>> opened, std::vector<OpenFailure> failures)
    : backends_(std::move(opened)), failures_(std::move(failures)) {}

std::unique_ptr<Backends> Backends::open(std::span<const Opener> table, const OpenOptions& options) {
  std::vector<std::unique_ptr<DeviceBackend>> opened;
  std::vector<OpenFailure> failures;
  for (const Opener& row : table) {
    auto backend = row.open(options);
    if (backend) {
      opened.push_back(std::move(*backend));
    } else {
      failures.push_back({std::string(row.name), backend.error().message});
    }
  }
  return std::make_unique<Backends>(std::move(opened), std::move(failures));
}

std::string Backends::failure_text() const {
  std::string out;
  for (const auto& f : failures_) {
    if (!out.empty()) out += '\n';
    out += f.message;
  }
  return out;
}

std::pair<const DeviceBackend*, unsigned> Backends::locate(unsigned index) const {
  if (backends_.size() == 1) return {backends_.front().get(), index};  // the common case: no counting
  for (const auto& backend : backends_) {
    unsigned count = 0;
    if (!backend->device_count(&count).ok()) count = 0;
    if (index < count) return {backend.get(), index};
    index -= count;
  }
  return {nullptr, 0};
}

core::Vendor Backends::vendor() const { return backends_.empty() ? core::Vendor::Nvidia : backends_.front()->vendor(); }

std::string Backends::describe() const {
  std::string out;
  for (const auto& backend : backends_) {
    if (!out.empty()) out += ", ";
    out += backend->describe();
  }
  return out;
}

core::ReadError Backends::device_count(unsigned* count) const {
  if (backends_.size() == 1) return backends_.front()->device_count(count);
  if (backends_.empty()) return kNoBackend;
  unsigned total = 0;
  core::ReadError first_error;
  bool any_ok = false;
  for (const auto& backend : backends_) {
    unsigned n = 0;
    const core::ReadError e = backend->device_count(&n);
    if (e.ok()) {
      total += n;
      any_ok = true;
    } else if (first_error.ok()) {
      first_error = e;
    }
  }
  *count = total;
  return any_ok ? core::ReadError{} : first_error;
}

core::ReadError Backends::handle_by_index(unsigned index, DeviceHandle* handle) const {
  const auto [backend, local] = locate(index);
  if (backend == nullptr) return backends_.empty() ? kNoBackend : backends_.front()->error_of(core::ErrorReason::NotFound);
  return backend->handle_by_index(local, handle);
}

core::ReadError Backends::read_source(DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                                      core::DeviceSnapshot& device) const {
  return dev.owner->read_source(dev, source, fields, device);
}

core::ReadError Backends::read_processes(DeviceHandle dev, unsigned long long* utilization_since_us,
                                         core::DeviceSnapshot& device) const {
  return dev.owner->read_processes(dev, utilization_since_us, device);
}

core::ReadError Backends::driver_version(std::string& out) const {
  return backends_.empty() ? kNoBackend : backends_.front()->driver_version(out);
}

core::ReadError Backends::cuda_driver_version(int* version) const {
  return backends_.empty() ? kNoBackend : backends_.front()->cuda_driver_version(version);
}

core::Vendor Backends::vendor_of(unsigned index) const {
  const auto [backend, local] = locate(index);
  return backend != nullptr ? backend->vendor_of(local) : vendor();
}

std::string Backends::error_text(core::ReadError error) const {
  if (backends_.empty()) return "No device backend";
  const core::Vendor owner = core::vendor_of_code(error.vendor_code);
  for (const auto& backend : backends_) {
    if (backend->vendor() == owner) return backend->error_text(error);
  }
  return backends_.front()->error_text(error);
}

core::ReadError Backends::error_of(core::ErrorReason reason) const {
  return backends_.empty() ? core::ReadError{reason, 0} : backends_.front()->error_of(reason);
}

core::ReadError Backends::last_error() const {
  for (const auto& backend : backends_) {
    if (const core::ReadError e = backend->last_error(); !e.ok()) return e;
  }
  return {};
}

std::unique_ptr<ProfilingReader> Backends::profiling_reader(unsigned index) const {
  const auto [backend, local] = locate(index);
  if (backend == nullptr) return backends_.empty() ? nullptr : backends_.front()->profiling_reader(index);
  return backend->profiling_reader(local);
}

std::unique_ptr<EventSource> Backends::open_events(unsigned gpu_count) const {
  if (backends_.size() == 1) return backends_.front()->open_events(gpu_count);
  if (backends_.empty()) return std::make_unique<NoEvents>();
  auto merged = std::make_unique<MergedEvents>();
  unsigned offset = 0;
  for (const auto& backend : backends_) {
    unsigned n = 0;
    if (!backend->device_count(&n).ok() || offset >= gpu_count) continue;
    n = std::min(n, gpu_count - offset);
    merged->add(backend->open_events(n), offset);
    offset += n;
  }
  return merged;
}

bool Backends::set_sim_clock(long long unix_ms) const {
  bool any = false;
  for (const auto& backend : backends_) any = backend->set_sim_clock(unix_ms) || any;
  return any;
}

bool Backends::has_sim_clock() const {
  return std::any_of(backends_.begin(), backends_.end(), [](const auto& b) { return b->has_sim_clock(); });
}

std::optional<double> Backends::sim_time_scale() const {
  for (const auto& backend : backends_) {
    if (auto scale = backend->sim_time_scale()) return scale;
  }
  return std::nullopt;
}

}  // namespace gpuwatch::backend
