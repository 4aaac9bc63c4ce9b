#include "live/live_diagnosis.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::live {

LiveDiagnosis::LiveDiagnosis(Source source, std::chrono::milliseconds interval, TickHook on_tick,
                             diagnose::Diagnoser primed, IdentityReader identities)
    : source_(std::move(source)),
      interval_(interval),
      on_tick_(std::move(on_tick)),
      diagnoser_(std::move(primed)),
      identities_(std::move(identities)),
      adopt_processes_(diagnoser_.samples_observed() > 0),
      active_(diagnoser_.findings()) {}

LiveDiagnosis::~LiveDiagnosis() { stop(); }

void LiveDiagnosis::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) break;
      lock.unlock();
      tick(std::chrono::system_clock::now());
      lock.lock();
    }
  });
}

void LiveDiagnosis::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LiveDiagnosis::tick(std::chrono::system_clock::time_point now) {
  DiagnosisInput input = source_();
  input.snapshot.timestamp = now;
  for (const auto& count : input.xids) {
    auto seen = std::find_if(seen_xids_.begin(), seen_xids_.end(),
                             [&](const XidCount& s) { return s.gpu == count.gpu && s.xid == count.xid; });
    if (seen != seen_xids_.end() && seen->count >= count.count) continue;
    auto at = std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::duration<double>(count.last_seen_unix_s)));
    diagnoser_.observe_xid(count.gpu, count.xid, at);
  }
  seen_xids_ = input.xids;
  if (adopt_processes_) identities_.adopt(input.snapshot);
  else identities_.feed(input.snapshot, diagnoser_);
  adopt_processes_ = false;
  diagnoser_.observe(input.snapshot);
  auto findings = diagnoser_.findings();
  if (on_tick_) on_tick_(input, findings, now);
  std::lock_guard lock(mutex_);
  active_ = std::move(findings);
}

std::vector<diagnose::Finding> LiveDiagnosis::active() const {
  std::lock_guard lock(mutex_);
  return active_;
}

}  // namespace gpuwatch::live
