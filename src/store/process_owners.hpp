#pragma once
// Who held each GPU process over time (issue 15, schema 10: table process_owners): one row per
// span in which one process on one GPU had one owner (container, Kubernetes pod, Slurm job).
// A recorder extends the open span of a process every sample and starts a new one when the
// owner changes or the process goes away, so a day of one job is one row per process and GPU,
// not one per sample. `history --slurm-job/--pod` and `report --slurm-job/--pod` read them back
// as the window and the GPUs of that job or pod. Every owner member is optional: NULL is "not
// found out", never an empty string. Times in Unix ms.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

// The owner of a process, as stored (the values of attribution::Attribution, as text).
struct ProcessOwner {
  std::optional<std::string> runtime, container_id, container_name;
  std::optional<std::string> pod_uid, pod_namespace, pod_name, pod_container;
  std::optional<std::string> slurm_job, slurm_step, slurm_user;
  bool empty() const;
  bool operator==(const ProcessOwner&) const = default;
};

struct OwnerSpanRow {
  std::string gpu_key;                  // the GPU's UUID, else "index:N" (as the gpus table)
  std::optional<std::string> gpu_uuid;  // nullopt: not known
  unsigned gpu_index = 0;               // NVML index when recorded
  std::uint32_t pid = 0;
  std::int64_t first_ms = 0, last_ms = 0;  // first and last sample of the span
  ProcessOwner owner;
  bool operator==(const OwnerSpanRow&) const = default;
};

// Migration 10: table process_owners, unique per (gpu_key, pid, first_ms), indexed by job, pod
// and time.
std::string schema_v10_sql();

// Inserts ROWS, or moves the end of a row already written (same gpu_key, pid and first_ms) to
// its new last_ms: writing the same span again is harmless. One transaction.
core::Result<void> write_owner_spans(HistoryDatabase& db, const std::vector<OwnerSpanRow>& rows);

// Which owner to read back: a Slurm job, or a pod by name (in any namespace when the namespace
// is absent).
struct OwnerFilter {
  std::optional<std::string> slurm_job = std::nullopt;
  std::optional<std::string> pod_name = std::nullopt, pod_namespace = std::nullopt;
};
// "--slurm-job ID" or "--pod NAME|NAMESPACE/NAME"; the error names the option and the problem.
core::Result<OwnerFilter> slurm_job_filter(const std::string& id);
core::Result<OwnerFilter> pod_filter(const std::string& name);
// "Slurm job 1234", "pod ml/trainer-0", "pod trainer-0".
std::string describe(const OwnerFilter& filter);

// The spans that match FILTER and overlap SINCE..UNTIL (nullopt: open), by first_ms. A file
// written before schema 10 has none: an empty list, not an error.
core::Result<std::vector<OwnerSpanRow>> read_owner_spans(const HistoryDatabase& db, const OwnerFilter& filter,
                                                         std::optional<std::int64_t> since_ms = std::nullopt,
                                                         std::optional<std::int64_t> until_ms = std::nullopt);

// Every owner's spans on the GPUs GPU_KEYS (gpus.gpu_key) that overlap SINCE..UNTIL: who else held
// those GPUs while a job or pod did (history/owner_energy.hpp splits a shared GPU's energy).
core::Result<std::vector<OwnerSpanRow>> read_spans_on_gpus(const HistoryDatabase& db, const std::vector<std::string>& gpu_keys,
                                                           std::int64_t since_ms, std::int64_t until_ms);
// Which owner a span is, for telling owners apart: its Slurm job, else its pod (UID, else
// namespace/name), else its container, else its process ("slurm:1234", "pod-uid:...", "pid:42").
std::string owner_identity(const OwnerSpanRow& span);

// What a job or pod held, from its spans (pure).
struct OwnerGpu {
  std::optional<std::string> uuid;
  unsigned index = 0;
  bool operator==(const OwnerGpu&) const = default;
};
struct OwnerProcess {
  std::optional<std::string> gpu_uuid;
  unsigned gpu_index = 0;
  std::uint32_t pid = 0;
  bool operator==(const OwnerProcess&) const = default;
};
struct OwnerWindow {
  std::string kind;                      // "slurm_job" or "pod"
  std::string title;                     // describe(filter)
  std::int64_t first_ms = 0, last_ms = 0;  // the first and last sample any of its processes was seen in
  std::vector<OwnerGpu> gpus;            // by index, no duplicates
  std::vector<OwnerProcess> processes;   // by GPU index, then pid; no duplicates
  // Distinct values seen, sorted: the users and steps of a Slurm job, the namespaces and
  // containers of a pod (several namespaces: a pod name given without one matched in several).
  std::vector<std::string> users, steps, namespaces, containers;
  bool holds(const std::optional<std::string>& gpu_uuid, unsigned gpu_index) const;
  bool ran(const std::optional<std::string>& gpu_uuid, unsigned gpu_index, std::uint32_t pid) const;
};
// nullopt when SPANS is empty.
std::optional<OwnerWindow> owner_window(const OwnerFilter& filter, const std::vector<OwnerSpanRow>& spans);

}  // namespace gpuwatch::store
