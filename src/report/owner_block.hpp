#pragma once
// `gpuwatch report --slurm-job ID` / `--pod NAME` (issue 15): the block that titles a report
// with the Slurm job or pod it covers (its GPUs, processes, users or containers, its first and
// last sample), the range as boundaries for the charts (the same #job-boundaries data as
// `report --job`), and the narrowing of a report to what the owner held. Pure functions over
// store::OwnerWindow (store/process_owners.hpp).
#include <nlohmann/json.hpp>
#include <string>

#include "report/units.hpp"
#include "store/history_report.hpp"
#include "store/process_owners.hpp"

namespace gpuwatch::report {

// "Slurm job 4242 (user alice, steps 0, batch): GPUs 0, 1, 3 processes\n  2026-11-30 12:00:00 – 12:10:00\n"
std::string owner_block_text(const store::OwnerWindow& owner, TimeStyle style);
// {"kind": "slurm_job"|"pod", "title", "first_ms", "last_ms", "first", "last", "gpus": [{"index", "uuid"}],
//  "processes": [{"gpu", "pid"}], "users", "steps", "namespaces", "containers"}
nlohmann::ordered_json owner_block_json(const store::OwnerWindow& owner);
// A <section class="job"> with the text block, and the #job-boundaries data for the charts.
std::string owner_block_html(const store::OwnerWindow& owner, TimeStyle style);

// Keeps in REPORT only the GPUs the owner held and the owner's processes, and sets report.owner.
void restrict_to_owner(store::HistoryReport& report, const store::OwnerWindow& owner);

}  // namespace gpuwatch::report
