#include "recorder/record_loop.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <iterator>

#include "attribution/snapshot_processes.hpp"
#include "diagnose/finding_changes.hpp"
#include "store/xid_log.hpp"

namespace gpuwatch::recorder {
namespace {

// Sleeps until DEADLINE in short slices; false when a stop signal came first.
bool sleep_until_or_signal(std::chrono::steady_clock::time_point deadline, const volatile std::sig_atomic_t& stop_signal) {
  while (stop_signal == 0) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return true;
    auto slice = std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100));
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count();
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  return false;
}

// A tick waits this long for a GPU running late (on a loaded machine it catches up within a second).
constexpr auto kWaitForLateGpu = std::chrono::milliseconds(1500);

}  // namespace

RecordLoop::RecordLoop(live::LiveSession& session, SampleQueue& queue, RecordOutputs outputs,
                       std::chrono::milliseconds interval, long count, const volatile std::sig_atomic_t& stop_signal)
    : session_(session),
      queue_(queue),
      out_(outputs),
      interval_(interval),
      count_(count),
      stop_signal_(stop_signal),
      gpu_count_(session.collector().gpu_count()),
      // The GPUs of one tick start within milliseconds of each other: a sample is taken once it is
      // half an interval old, so that its tick is complete.
      window_(std::max<std::chrono::milliseconds>(interval / 2, std::chrono::milliseconds(1))),
      per_gpu_(gpu_count_, 0),
      active_(session.findings()) {
  if (out_.logs != nullptr) {
    for (const auto& log : *out_.logs) log_health_.emplace_back("record", log->path());
  }
}

void announce_ongoing_findings(const std::vector<diagnose::Finding>& findings) {
  for (const auto& f : findings) {
    fmt::print(stderr, "gpuwatch record: finding (ongoing): {} GPU {}: {} ({})\n", diagnose::to_string(f.severity),
               fmt::join(f.gpus, ","), f.summary, f.kind);
  }
}

// --count N: N samples of each GPU (a GPU that stops answering is not waited for beyond the
// collector's stale limit once the others have theirs).
bool RecordLoop::wanted_more() const {
  if (count_ <= 0) return true;
  if (std::all_of(per_gpu_.begin(), per_gpu_.end(), [&](long n) { return n >= count_; })) return false;
  return !first_done_ || std::chrono::steady_clock::now() - *first_done_ <= session_.collector().stale_after();
}

// The GPUs whose latest sample is fresh: a stale one (a hung call) is not waited for.
std::size_t RecordLoop::answering() const {
  std::size_t n = 0;
  const auto stale_ms = static_cast<double>(session_.collector().stale_after().count());
  session_.collector().with_view([&](const live::LiveView& view) {
    for (const auto& status : view.status) n += status.has_sample && status.sample_age_seconds * 1000.0 <= stale_ms;
  });
  return n;
}

void RecordLoop::take_tick(core::Snapshot& snapshot) {
  if (count_ > 0) {
    std::erase_if(snapshot.devices, [&](const core::DeviceSnapshot& d) {
      return d.index < per_gpu_.size() && per_gpu_[d.index] >= count_;
    });
    if (snapshot.devices.empty()) return;
    for (const auto& d : snapshot.devices) {
      if (d.index < per_gpu_.size() && ++per_gpu_[d.index] == count_ && !first_done_) {
        first_done_ = std::chrono::steady_clock::now();
      }
    }
  }
  tick_size_ = snapshot.devices.size();
  snapshot.device_count = gpu_count_;  // NVML's count, not how many answered this tick
  session_.collector().with_view([&](const live::LiveView& view) {
    snapshot.driver_version = view.snapshot->driver_version;
    snapshot.cuda_driver_version = view.snapshot->cuda_driver_version;
    snapshot.error_strings = view.snapshot->error_strings;
    xid_counts_ = view.xid_events;
  });
  // The host beside this tick (the nearest host sample within an interval), for the diagnosis and the rows.
  if (host_ && !snapshot.host) snapshot.host = host_->take_for(snapshot.timestamp, interval_);
  if (out_.db != nullptr) {  // outside the view's lock: a busy database must not hold up the collector
    if (auto written = store::write_xid_events(*out_.db, xid_diff_.new_events(xid_counts_, snapshot)); !written) {
      fmt::print(stderr, "gpuwatch record: {}\n", written.error().message);
    }
  }
  ++samples_;
  if (out_.logs != nullptr) {
    for (std::size_t i = 0; i < out_.logs->size(); ++i) log_health_[i].update((*out_.logs)[i]->append(snapshot));
  }
  // Live diagnosis, incremental (each tick observed once), and the alerts after it; a finding is
  // told when it starts (or gets worse) and when it ends, so the log says when the trouble was.
  auto now = session_.observe(snapshot);
  auto changes = diagnose::finding_changes(active_, now);
  for (const auto& f : changes.started) {
    fmt::print(stderr, "gpuwatch record: finding: {} GPU {}: {} ({})\n", diagnose::to_string(f.severity),
               fmt::join(f.gpus, ","), f.summary, f.kind);
  }
  for (const auto& f : changes.ended) {
    fmt::print(stderr, "gpuwatch record: finding ended: GPU {}: {} ({})\n", fmt::join(f.gpus, ","), f.summary, f.kind);
  }
  active_ = std::move(now);
  if (out_.recorder != nullptr) {
    out_.recorder->add(snapshot);
    if (out_.attributor != nullptr) {
      out_.recorder->add_owners(snapshot, out_.attributor->attribute(attribution::gpu_processes(snapshot)));
    }
    out_.recorder->flush_if_due(std::chrono::steady_clock::now());
  }
}

void RecordLoop::run() {
  const auto wake_every = std::clamp<std::chrono::milliseconds>(interval_ / 2, std::chrono::milliseconds(1),
                                                                 std::chrono::milliseconds(100));
  while (stop_signal_ == 0 && wanted_more()) {
    if (!sleep_until_or_signal(std::chrono::steady_clock::now() + wake_every, stop_signal_)) break;
    const auto now = std::chrono::system_clock::now();
    auto ticks = queue_.take(now - window_, window_);
    // A tick waits for every GPU that answers before it is written, so each row set is whole.
    const std::size_t expected = answering();
    auto whole_or_old = [&](const core::Snapshot& t) { return t.devices.size() >= expected || now - t.timestamp > kWaitForLateGpu; };
    auto waiting = std::find_if_not(ticks.begin(), ticks.end(), whole_or_old);
    queue_.put_back(std::vector<core::Snapshot>(std::make_move_iterator(waiting), std::make_move_iterator(ticks.end())));
    ticks.erase(waiting, ticks.end());
    for (auto& snapshot : ticks) {
      if (!wanted_more()) break;
      take_tick(snapshot);
    }
    if (out_.recorder != nullptr) out_.recorder->flush_if_due(std::chrono::steady_clock::now());
  }
}

void RecordLoop::drain() {
  auto last = queue_.take(std::nullopt, window_);
  // The signal may come between the GPUs' samples of one tick: that tick is dropped whole
  // rather than written for some GPUs only.
  if (!last.empty() && last.back().devices.size() < tick_size_) last.pop_back();
  for (auto& snapshot : last) {
    if (!wanted_more()) break;
    take_tick(snapshot);
  }
}

}  // namespace gpuwatch::recorder
