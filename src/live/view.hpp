#pragma once
// What the live pipeline publishes: the latest snapshot with what the collector knows about each
// GPU's freshness, the live findings and alerts, Xid counts and who holds each GPU. Read by the
// exporter (/metrics, the JSON API, the dashboard), `top` and the remote-write pusher alike.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alerts/alert.hpp"
#include "attribution/gpu_owners.hpp"
#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"
#include "host/process_info.hpp"
#include "live/xid_count.hpp"

namespace gpuwatch::live {

// What the collector knows about one GPU besides its readings.
struct DeviceStatus {
  bool has_sample = false;                    // at least one sample finished
  bool up = false;                            // sample fresh and the device Ok
  double sample_age_seconds = 0;              // now - start of the last finished sample
  double collect_duration_seconds = 0;        // how long that sample took
  // issue 29: power.draw integrated over the samples since start (live/energy_integrator.hpp);
  // absent: no power reading yet. /metrics uses it where the GPU has no energy counter.
  std::optional<double> estimated_energy_joules;
};

// Failed NVML reads (not the cached "not supported"), counted since start.
struct NvmlErrorCount {
  std::string field;  // the field's query name, e.g. "power.draw"
  int code = 0;       // the vendor code (core::ReadError::vendor_code)
  std::uint64_t count = 0;
};

struct LiveView {
  const core::Snapshot* snapshot = nullptr;       // devices in index order
  std::vector<DeviceStatus> status;               // parallel to snapshot->devices
  std::vector<NvmlErrorCount> nvml_errors;        // sorted by (field, code)
  std::map<std::uint32_t, std::string> process_users;  // pid -> user (per-process series)
  bool collector_success = false;                 // every GPU up
  std::vector<XidCount> xid_events;               // Xids seen since start, by (gpu, xid); empty: none or not watched
  std::vector<diagnose::Finding> findings;        // active diagnose findings (serve's live diagnosis); empty: none
  std::vector<alerts::Alert> alerts;              // pending and firing alerts of the local engine; empty: none or off
  // issue 15: who holds each GPU (parallel to snapshot->devices; empty: attribution off) and
  // the container, pod and Slurm job of each process.
  std::vector<attribution::OwnerLabels> gpu_owners;
  std::map<std::uint32_t, attribution::Attribution> process_owners;
  std::map<std::uint32_t, host::ProcessInfo> process_info;  // pid -> /proc's view (JSON API); empty: not read
};

}  // namespace gpuwatch::live
