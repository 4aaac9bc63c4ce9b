#pragma once
// `gpuwatch report --job ID`: the block that titles a report with its job (name, command, user,
// host, start and end, exit status, the summary `gpuwatch run` stored), and the job's start and
// end as data the charts can draw as boundaries. Pure functions over store::JobRow.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/history_report.hpp"
#include "store/jobs.hpp"

namespace gpuwatch::report {

// "Job 3: train (python train.py --epochs 1) by alice on node1\n  2026-11-30 12:00:00 to ... , exit 0\n..."
std::string job_block_text(const store::JobRow& job);
// {"id", "name", "command", "user", "host", "start", "end", "start_ms", "end_ms", "exit_status", "gpus", "summary"}
nlohmann::ordered_json job_block_json(const store::JobRow& job);
// A <section class="job"> with the text block, and <script type="application/json" id="job-boundaries">
// {"start_ms": ..., "end_ms": ...} for the charts.
std::string job_block_html(const store::JobRow& job);

}  // namespace gpuwatch::report

namespace gpuwatch::report {
// The UUIDs and NVML indices of the GPUs the job used (its gpus JSON); empty when it used none.
struct JobGpus {
  std::vector<std::string> uuids;
  std::vector<unsigned> indices;
};
JobGpus job_gpus(const store::JobRow& job);
// Keeps in REPORT only the GPUs (and their processes) the job used, and sets report.job.
void restrict_to_job(store::HistoryReport& report, const store::JobRow& job);
}  // namespace gpuwatch::report
