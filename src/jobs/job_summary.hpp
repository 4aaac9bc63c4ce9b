#pragma once
// The summary `gpuwatch run` prints when the job ends (stderr), writes with --summary-json and
// keeps in the jobs table: built from the GPUs' DeviceStats (only those the job used), the Xids
// seen, the diagnose engine's findings and the steps file. Pure logic; text and JSON renderers.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"
#include "jobs/device_stats.hpp"
#include "jobs/energy_report.hpp"

namespace gpuwatch::jobs {

struct JobInfo {
  std::optional<std::int64_t> id;      // the jobs table's id; nullopt with --no-record
  std::string name;
  std::vector<std::string> command;    // argv
  std::string user, host;
  TimePoint start, end;
  int exit_status = 0;                 // what gpuwatch run exits with (128+N for signal N)
  std::optional<int> signal;           // the signal that ended the command
};

struct XidSeen {
  unsigned gpu = 0;
  std::uint64_t xid = 0;
  std::uint64_t count = 0;
};

struct StepsSummary {
  std::size_t count = 0, malformed = 0;
  std::optional<double> data_wait_ratio;
};

struct JobSummary {
  JobInfo info;
  double wall_s = 0;
  double gpu_hours = 0;                 // wall time x the job's GPUs (a MIG device counts as one)
  std::vector<DeviceStats> gpus;        // the GPUs the job used, by index
  std::optional<double> energy_j;       // over the job's GPUs; nullopt when no GPU reported energy or power
  std::string energy_source;            // "counter", "estimated" (integrated power), "mixed" ("" without energy)
  std::vector<XidSeen> xids;            // on the job's GPUs
  std::vector<diagnose::Finding> findings;  // on the job's GPUs, and the measured starvation
  StepsSummary steps;
  EnergyReport energy;                  // per GPU, per step, waste, cost and CO2 (set by the caller: energy_report.hpp)
};

// DEVICES: every GPU seen (used or not); XIDS: every Xid counted during the job; FINDINGS: every
// finding of the diagnose engine during the job. Keeps what concerns the GPUs the job used.
JobSummary summarize(JobInfo info, const std::vector<DeviceStats>& devices, const std::vector<XidSeen>& xids,
                     const std::vector<diagnose::Finding>& findings, StepsSummary steps);

// "3 h 12 m", "4 m 05 s", "12 s" (whole seconds; hours and minutes above an hour).
std::string duration_words(double seconds);
// "job NAME finished after 3 h 12 m" / "job NAME failed (exit 3) after 12 s" / "... (signal 15) ...".
std::string end_message(const JobInfo& info);

nlohmann::json summary_json(const JobSummary& summary);
// The GPUs the job used as stored in the jobs table: [{"index", "uuid", "mig_uuids": [...]}].
nlohmann::json gpus_json(const JobSummary& summary);
// Several lines for stderr, ending with a newline.
std::string summary_text(const JobSummary& summary);

}  // namespace gpuwatch::jobs

namespace gpuwatch::jobs {
// Keeps in SEEN the latest version of every finding ACTIVE_NOW holds (same kind, GPUs and PID):
// the findings of a job are every finding the live diagnosis raised while it ran.
void merge_findings(std::vector<diagnose::Finding>& seen, const std::vector<diagnose::Finding>& active_now);
}  // namespace gpuwatch::jobs
