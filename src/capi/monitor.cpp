#include "capi/monitor.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "capi/job_gpus.hpp"
#include "host_signals/host_sampler.hpp"
#include "vendors/vendor_table.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/sampler.hpp"
#include "sampler/ticker.hpp"

namespace gpuwatch::capi {

core::Result<MonitorOptions> monitor_options(double interval_s, const char* gpus, const char* nvml_library,
                                             const char* env_nvml_library, const char* env_cuda_visible_devices,
                                             std::uint32_t root_pid) {
  if (!std::isfinite(interval_s) || interval_s < kMinIntervalS || interval_s > kMaxIntervalS)
    return core::Error{fmt::format("interval {} s is out of range: give {} to {} seconds", interval_s, kMinIntervalS,
                                   kMaxIntervalS)};
  MonitorOptions options;
  options.interval = std::chrono::duration<double>(interval_s);
  const std::string selection = gpus ? gpus : "";
  if (selection == "all") {
    options.selection = Selection::All;
  } else if (selection == "job") {
    options.selection = Selection::Job;
  } else if (selection.empty()) {
    return core::Error{"empty GPU selection: give \"all\", \"job\", or GPU indices/UUIDs like \"0,2\""};
  } else {
    options.selection = Selection::List;
    options.gpu_list = selection;
  }
  if (nvml_library && *nvml_library) options.nvml_library = nvml_library;
  else if (env_nvml_library) options.nvml_library = env_nvml_library;
  if (env_cuda_visible_devices) options.cuda_visible_devices = env_cuda_visible_devices;
  options.root_pid = root_pid;
  return options;
}

Monitor::Monitor(MonitorOptions options)
    : options_(std::move(options)), latest_(std::make_shared<const FlatSample>()) {}

Monitor::~Monitor() { stop(); }

Monitor::StartError Monitor::start(std::chrono::duration<double> timeout, std::string& message) {
  std::unique_lock lock(mutex_);
  if (started_) {
    message = "the monitor is already started";
    return StartError::AlreadyStarted;
  }
  started_ = true;
  thread_ = std::thread([this] { run(); });
  const bool ready = changed_.wait_for(lock, timeout, [this] { return start_error_ || count_.load() > 0; });
  if (start_error_) {
    message = start_error_->second;
    return start_error_->first;
  }
  if (!ready) {
    message = fmt::format("no sample within {:.1f} s (NVML is slow to answer); sampling goes on in the background",
                          timeout.count());
    return StartError::Timeout;
  }
  return StartError::None;
}

bool Monitor::wait(std::uint64_t after, std::chrono::duration<double> timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return count_.load() > after || finished_ || stopping_; }) &&
         count_.load() > after;
}

std::shared_ptr<const FlatSample> Monitor::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void Monitor::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Monitor::sleep_until(std::chrono::steady_clock::time_point when) {
  std::unique_lock lock(mutex_);
  return !changed_.wait_until(lock, when, [this] { return stopping_; });
}

void Monitor::run() {
  auto fail = [this](StartError error, std::string message) {
    {
      std::lock_guard lock(mutex_);
      start_error_ = {error, std::move(message)};
      finished_ = true;
    }
    changed_.notify_all();
  };
  backend::OpenOptions open;
  open.nvidia_library = options_.nvml_library;
  if (const char* root = std::getenv("GPUWATCH_HOST_ROOT"); root != nullptr && *root != '\0') open.host_root = root;
  const auto backends = vendors::open_backends(open);
  if (backends->empty()) return fail(StartError::NvmlUnavailable, backends->failure_text());
  const backend::DeviceBackend& api = *backends;

  sampler::SampleOptions sample_options;
  sample_options.fields = sampled_fields();
  sample_options.processes = options_.selection == Selection::Job;
  if (options_.selection == Selection::List) {
    auto ids = sampler::resolve_gpu_ids(options_.gpu_list, api);
    if (!ids) return fail(StartError::BadSelection, ids.error().message);
    unsigned count = 0;
    if (!api.device_count(&count).ok()) count = 0;
    for (unsigned index : *ids)
      if (index >= count)
        return fail(StartError::BadSelection, fmt::format("no GPU {}: this machine has {} GPU{} (0..{})", index, count,
                                                          count == 1 ? "" : "s", count ? count - 1 : 0));
    sample_options.devices = *ids;
  }

  sampler::Sampler sampler(api);
  core::Snapshot snapshot;
  // The host beside the GPUs (issue 25): read each tick on this thread, the job's root as the root
  // of its process tree (the DataLoader workers' CPU); a few small /proc reads.
  auto host = host_signals::HostSampler::under_root(open.host_root);
  std::set<unsigned> host_roots;
  if (options_.selection == Selection::Job && options_.root_pid != 0) host_roots.insert(options_.root_pid);
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(options_.interval);
  auto next = std::chrono::steady_clock::now();
  do {
    sampler.sample_into(sample_options, snapshot);
    std::vector<unsigned> gpus;
    if (options_.selection == Selection::Job) {
      bool any_process = false;
      for (const auto& device : snapshot.devices) any_process = any_process || !device.processes.empty();
      const auto tree = any_process ? process_tree(options_.root_pid) : std::set<std::uint32_t>{};
      gpus = job_gpus(snapshot, tree, options_.cuda_visible_devices);
    } else {
      for (const auto& device : snapshot.devices) gpus.push_back(device.index);
    }
    auto sample = std::make_shared<FlatSample>();
    sample->unix_s = std::chrono::duration<double>(snapshot.timestamp.time_since_epoch()).count();
    sample->gpus = std::move(gpus);
    sample->entries = flatten(snapshot, sample->gpus);
    for (auto& entry : flatten_host(host.sample(std::chrono::steady_clock::now(), host_roots))) sample->entries.push_back(std::move(entry));
    sample->json = to_json(sample->unix_s, sample->gpus, sample->entries);
    {
      std::lock_guard lock(mutex_);
      latest_ = std::move(sample);
      count_.fetch_add(1, std::memory_order_release);
    }
    changed_.notify_all();
    next = sampler::Ticker::next_tick(next + period, std::chrono::steady_clock::now(), period);
  } while (sleep_until(next));
  std::lock_guard lock(mutex_);
  finished_ = true;
}

}  // namespace gpuwatch::capi
