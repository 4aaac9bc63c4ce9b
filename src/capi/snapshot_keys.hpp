#pragma once
// The flat key/value form of a sample that the C ABI (and so the Python package) hands
// out: "gpu0/util_percent" = 87. One table maps each key suffix onto a row of the field
// table (core/field_list.def) and the factor from its base unit. An absent reading is an
// absent key, never 0.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/field.hpp"
#include "core/snapshot.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::capi {

struct SnapshotKey {
  std::string_view suffix;  // "util_percent"
  core::FieldId field;      // core::FieldId::UtilizationGpu
  double scale;             // base unit -> key unit (ratio -> percent: 100)
};

// Every key of a GPU, in output order.
std::span<const SnapshotKey> snapshot_keys();

// The fields the sampler must read for snapshot_keys() (plus Uuid, for GPU selection).
std::vector<core::FieldId> sampled_fields();

using FlatEntries = std::vector<std::pair<std::string, double>>;

// The entries of the GPUs of SNAPSHOT whose index is in GPUS, in GPUS order. A GPU that is
// lost or inaccessible contributes no entries; neither does any absent reading.
FlatEntries flatten(const core::Snapshot& snapshot, std::span<const unsigned> gpus);

// The host beside the GPUs (issue 25): "host/<key>" for each present value of
// host_signals::host_fields() ("host/cpu_busy_percent"), and for the process trees sampled (the
// job's root: its DataLoader workers) "host/job_cpu_cores" (their CPU, summed) and
// "host/job_processes". Absent values are absent keys.
FlatEntries flatten_host(const host_signals::HostSample& host);

// {"time": UNIX_S, "gpus": [GPUS...], KEY: VALUE, ...}
std::string to_json(double unix_s, std::span<const unsigned> gpus, const FlatEntries& entries);

}  // namespace gpuwatch::capi
