#include "history/lost_monitors.hpp"

#include <chrono>
#include <fmt/core.h>

#include "host/host_name.hpp"
#include "host/process_start.hpp"

namespace gpuwatch::history {

bool monitor_lost(const store::JobRow& job, const std::string& this_host, const StartTicksOf& start_of) {
  if (job.monitor_lost_noticed_ms) return true;
  if (job.end_ms || !job.monitor_pid || !job.monitor_start_ticks || job.host != this_host) return false;
  const auto now = start_of(*job.monitor_pid);
  return !now || static_cast<std::int64_t>(*now) != *job.monitor_start_ticks;
}

void mark_lost_monitors(std::vector<store::JobRow>& jobs) {
  const std::string here = host::host_name();
  const StartTicksOf start_of = [](std::int64_t pid) { return host::process_start_ticks(pid); };
  for (auto& job : jobs) job.monitor_lost = monitor_lost(job, here, start_of);
}

std::vector<std::string> notice_lost_monitors(store::HistoryDatabase& db) {
  std::vector<std::string> lines;
  auto jobs = store::unfinished_jobs(db);
  if (!jobs) return {jobs.error().message};
  const std::string here = host::host_name();
  const StartTicksOf start_of = [](std::int64_t pid) { return host::process_start_ticks(pid); };
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const auto& job : *jobs) {
    if (!monitor_lost(job, here, start_of)) continue;
    lines.push_back(fmt::format("monitor lost: job {} ({}) has no end in {}: its `gpuwatch run` (pid {}) is gone, so the "
                                "job may run on unrecorded (`gpuwatch history --jobs` marks it)",
                                job.id, job.name, db.path(), *job.monitor_pid));
    if (auto noted = store::note_monitor_lost(db, job.id, now_ms); !noted) lines.push_back(noted.error().message);
  }
  return lines;
}

}  // namespace gpuwatch::history
