#include "live/xid_watcher.hpp"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>


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

void run(std::shared_ptr<XidWatcher::Shared> shared, const backend::DeviceBackend& backend, XidWatcherOptions options,
         unsigned gpu_count) {
  std::unique_ptr<backend::EventSource> events = backend.open_events(gpu_count);  // registers the GPUs
  const std::vector<unsigned> watched = events->watched_gpus();
  {
    std::lock_guard lock(shared->mutex);
    shared->watched = watched;
  }
  const auto wait_ms = static_cast<unsigned>(std::max<long long>(1, options.wait.count()));
  backend::DeviceEvent event;
  while (!watched.empty()) {
    {
      std::lock_guard lock(shared->mutex);
      if (shared->stopping) break;
    }
    const backend::EventSource::Wait got = events->wait(wait_ms, event);
    if (got == backend::EventSource::Wait::TimedOut || got == backend::EventSource::Wait::Skipped) continue;
    std::unique_lock lock(shared->mutex);
    if (got == backend::EventSource::Wait::Failed) {
      // A failing wait (driver trouble) must not spin: back off, then try again.
      if (shared->wake.wait_for(lock, options.error_backoff, [&] { return shared->stopping; })) break;
      continue;
    }
    XidCount& c = shared->counts[{event.gpu, event.code}];
    c.gpu = event.gpu;
    c.xid = event.code;
    ++c.count;
    c.last_seen_unix_s = std::chrono::duration<double>(WallClock::now().time_since_epoch()).count();
  }
  events.reset();  // frees the set
  std::lock_guard lock(shared->mutex);
  shared->running = false;
  shared->exited.notify_all();
}

}  // namespace

XidWatcher::XidWatcher(const backend::DeviceBackend& backend, XidWatcherOptions options)
    : backend_(backend), options_(options), shared_(std::make_shared<Shared>()) {}

XidWatcher::~XidWatcher() {
  stop(std::chrono::milliseconds(0));
  std::lock_guard lock(shared_->mutex);
  if (shared_->thread.joinable()) shared_->thread.detach();  // still inside the driver: exits on its own
}

void XidWatcher::start(unsigned gpu_count) {
  std::lock_guard lock(shared_->mutex);
  if (shared_->running || shared_->thread.joinable()) return;
  shared_->running = true;
  shared_->thread = std::thread(run, shared_, std::cref(backend_), options_, gpu_count);
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
