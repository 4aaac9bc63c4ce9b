#pragma once
// Jobs whose `gpuwatch run` died while the job ran on (kill -9, OOM killer; issue 31): the job
// is inserted at its start with the monitor's pid and start time (store/jobs.hpp), and never
// finished. Monitoring never stops a training run, so the job itself lives on unrecorded: a
// reader on the same host that finds the monitor gone (its pid absent, or reused: another
// start time) shows the job as "monitor lost", and the next record, serve or run on the
// database says so once (notice_lost_monitors).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/jobs.hpp"

namespace gpuwatch::history {

// PID's start time in clock ticks after boot; nullopt: no such process (host/process_start.hpp).
using StartTicksOf = std::function<std::optional<std::uint64_t>(std::int64_t pid)>;

// Whether JOB's monitor is known lost: its loss was noticed before, or JOB has no end, ran on
// THIS_HOST, and its monitor's pid is gone or now another process. A job of another host, or
// recorded before schema 13, is never judged lost.
bool monitor_lost(const store::JobRow& job, const std::string& this_host, const StartTicksOf& start_of);

// Sets JobRow::monitor_lost of each of JOBS (this host's name; /proc).
void mark_lost_monitors(std::vector<store::JobRow>& jobs);

// A writer's check at start: the lines to print for each job of DB whose monitor was lost and
// not said yet ("job 12 (train.py, started ...) is running on unrecorded: its `gpuwatch run`
// (pid 4242) is gone"), after marking them said in DB. Errors are lines too: never fatal.
std::vector<std::string> notice_lost_monitors(store::HistoryDatabase& db);

}  // namespace gpuwatch::history
