#include "live/xid_watcher.hpp"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "live/xid_event_set.hpp"

namespace gpuwatch::live {

struct XidWatcher::Shared {
  mutable std::mutex mutex;
  std::condition_variable wake;    // stop requests (during back-off)
  std::condition_variable exited;
  bool stopping = false;
  bool running = false;
  std::map<std::pair<unsigned, std::uint64_t>, XidCount> counts;
  std::vector<unsigned> watched;
  std::thread thread;
};

namespace {

using WallClock = std::chrono::system_clock;

void run(std::shared_ptr<XidWatcher::Shared> shared, const nvml::NvmlApi& api, XidWatcherOptions options,
         unsigned gpu_count) {
  const nvml::NvmlFunctions& f = api.raw();
  nvmlEventSet_t set = nullptr;
  std::vector<std::pair<nvmlDevice_t, unsigned>> handles;
  if (GW_NVML_CALL(f, nvmlEventSetCreate, &set) == NVML_SUCCESS) handles = register_xid_gpus(api, set, gpu_count);
  {
    std::lock_guard lock(shared->mutex);
    for (const auto& h : handles) shared->watched.push_back(h.second);
  }
  const auto wait_ms = static_cast<unsigned>(std::max<long long>(1, options.wait.count()));
  while (!handles.empty()) {
    {
      std::lock_guard lock(shared->mutex);
      if (shared->stopping) break;
    }
    nvmlDevice_t device = nullptr;
    unsigned long long type = 0, data = 0;
    nvmlReturn_t rc = wait_xid_event(f, set, wait_ms, device, type, data);
    if (rc == NVML_ERROR_TIMEOUT) continue;
    std::unique_lock lock(shared->mutex);
    if (rc != NVML_SUCCESS) {
      // A failing wait (driver trouble) must not spin: back off, then try again.
      if (shared->wake.wait_for(lock, options.error_backoff, [&] { return shared->stopping; })) break;
      continue;
    }
    if ((type & nvmlEventTypeXidCriticalError) == 0) continue;
    auto found = std::find_if(handles.begin(), handles.end(), [&](const auto& h) { return h.first == device; });
    if (found == handles.end()) continue;  // not one of ours (a MIG handle we did not register)
    XidCount& c = shared->counts[{found->second, data}];
    c.gpu = found->second;
    c.xid = data;
    ++c.count;
    c.last_seen_unix_s = std::chrono::duration<double>(WallClock::now().time_since_epoch()).count();
  }
  if (set != nullptr) GW_NVML_CALL(f, nvmlEventSetFree, set);
  std::lock_guard lock(shared->mutex);
  shared->running = false;
  shared->exited.notify_all();
}

}  // namespace

XidWatcher::XidWatcher(const nvml::NvmlApi& api, XidWatcherOptions options)
    : api_(api), options_(options), shared_(std::make_shared<Shared>()) {}

XidWatcher::~XidWatcher() {
  stop(std::chrono::milliseconds(0));
  std::lock_guard lock(shared_->mutex);
  if (shared_->thread.joinable()) shared_->thread.detach();  // still inside NVML: exits on its own
}

void XidWatcher::start(unsigned gpu_count) {
  std::lock_guard lock(shared_->mutex);
  if (shared_->running || shared_->thread.joinable()) return;
  shared_->running = true;
  shared_->thread = std::thread(run, shared_, std::cref(api_), options_, gpu_count);
}

bool XidWatcher::stop(std::chrono::milliseconds timeout) {
  std::unique_lock lock(shared_->mutex);
  shared_->stopping = true;
  shared_->wake.notify_all();
  if (!shared_->exited.wait_for(lock, timeout, [&] { return !shared_->running; })) return false;
  std::thread thread = std::move(shared_->thread);
  lock.unlock();
  if (thread.joinable()) thread.join();
  return true;
}

std::vector<XidCount> XidWatcher::counts() const {
  std::lock_guard lock(shared_->mutex);
  std::vector<XidCount> out;
  out.reserve(shared_->counts.size());
  for (const auto& [key, c] : shared_->counts) out.push_back(c);
  return out;
}

std::vector<unsigned> XidWatcher::watched_gpus() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->watched;
}

}  // namespace gpuwatch::live
