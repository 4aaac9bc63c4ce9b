#pragma once
// The energy of a Slurm job or a Kubernetes pod, from the history (issue 29): each GPU's energy
// while the owner's processes were on it (its recorded spans, store/process_owners.hpp) — the
// counter where the GPU has one, else integrated power ("estimated") — the waste split against the
// findings, and cost and CO2 at the configured rates, as `gpuwatch run`'s summary gives a job's.
// A GPU shared with another owner at the same time counts whole for each (not split).
#include <vector>

#include "core/result.hpp"
#include "diagnose/finding.hpp"
#include "jobs/energy_rates.hpp"
#include "jobs/energy_report.hpp"
#include "store/history_database.hpp"
#include "store/process_owners.hpp"

namespace gpuwatch::history {

// The owner's time on each GPU: the union of its spans there, in Unix ms (inclusive).
struct OwnerInterval {
  unsigned gpu_index = 0;
  std::optional<std::string> gpu_uuid;
  std::int64_t first_ms = 0, last_ms = 0;
};
std::vector<OwnerInterval> owner_intervals(const std::vector<store::OwnerSpanRow>& spans);  // pure

// FINDINGS: the window's findings on the owner's GPUs (for the waste split). HOUR_OF: the hour of
// day of a time, for rates by hour (jobs::local_hour).
core::Result<jobs::EnergyReport> owner_energy(const store::HistoryDatabase& db, const store::OwnerFilter& filter,
                                              const store::OwnerWindow& owner,
                                              const std::vector<diagnose::Finding>& findings,
                                              const jobs::EnergyRates& rates, const jobs::HourOf& hour_of);

}  // namespace gpuwatch::history
