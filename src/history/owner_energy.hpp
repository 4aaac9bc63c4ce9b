#pragma once
// The energy of a Slurm job or a Kubernetes pod, from the history (issue 29): each GPU's energy
// while the owner's processes were on it (its recorded spans, store/process_owners.hpp) — the
// counter where the GPU has one, else integrated power ("estimated") — the waste split against the
// findings, and cost and CO2 at the configured rates, as `gpuwatch run`'s summary gives a job's.
// A GPU that other owners held at the same time (their recorded spans there) is split evenly: with
// N owners on it, each sample interval counts 1/N of its energy for each, so that the owners' energy
// adds up to the GPU's. Kepler splits by each process's SM share; the history records no per-process
// utilization, so the split here is even, and said so.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
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
  std::string gpu_key;  // as gpus.gpu_key
  unsigned gpu_index = 0;
  std::optional<std::string> gpu_uuid;
  std::int64_t first_ms = 0, last_ms = 0;
};
std::vector<OwnerInterval> owner_intervals(const std::vector<store::OwnerSpanRow>& spans);  // pure

// How many owners held a GPU at MS: this owner (OWN: its identities, store::owner_identity) and the
// others with a span in SPANS_ON_GPU covering MS. At least 1. Pure.
std::size_t owners_at(const std::vector<store::OwnerSpanRow>& spans_on_gpu, const std::set<std::string>& own, std::int64_t ms);

// A GPU the owner shared: for how long (the sample intervals counted at a share) and with at most
// how many owners at once (itself included).
struct SharedGpu {
  unsigned gpu_index = 0;
  double seconds = 0;
  std::size_t most_owners = 1;
};
struct OwnerEnergy {
  jobs::EnergyReport report;
  std::vector<SharedGpu> shared;  // by GPU index; empty: it had its GPUs alone
};
nlohmann::json shared_gpus_json(const std::vector<SharedGpu>& shared);
// Lines for the report (two-space indent), "" when nothing was shared.
std::string shared_gpus_text(const std::vector<SharedGpu>& shared);

// FINDINGS: the window's findings on the owner's GPUs (for the waste split). HOUR_OF: the hour of
// day of a time, for rates by hour (jobs::local_hour).
core::Result<OwnerEnergy> owner_energy(const store::HistoryDatabase& db, const store::OwnerFilter& filter,
                                              const store::OwnerWindow& owner,
                                              const std::vector<diagnose::Finding>& findings,
                                              const jobs::EnergyRates& rates, const jobs::HourOf& hour_of);

}  // namespace gpuwatch::history
