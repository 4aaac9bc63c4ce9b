#pragma once
// `history` and `report` per Slurm job or Kubernetes pod (issue 15): the owner's window looked up
// in the process owners a recorder kept (store/process_owners.hpp), with the errors a person can
// act on, the line that says what was found, and the findings on the owner's GPUs.
#include <string>
#include <vector>

#include "core/result.hpp"
#include "diagnose/finding.hpp"
#include "store/history_database.hpp"
#include "store/process_owners.hpp"

namespace gpuwatch::history {

// The window of FILTER in DB (at PATH, for the message). Errors: nothing recorded for it (the
// message says how owners get recorded), or a pod name found in several namespaces.
core::Result<store::OwnerWindow> find_owner_window(const store::HistoryDatabase& db, const store::OwnerFilter& filter,
                                                   const std::string& path);

// "Slurm job 7: GPUs 0,1 (3 processes) from 2026-11-30 12:00:00 to 2026-11-30 12:10:00" (local time).
std::string owner_window_line(const store::OwnerWindow& window);

// Keeps the findings that involve a GPU the owner held.
void keep_findings_of(std::vector<diagnose::Finding>& findings, const store::OwnerWindow& owner);

}  // namespace gpuwatch::history
