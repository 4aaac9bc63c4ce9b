#pragma once
// Snapshot -> Prometheus text exposition format 0.0.4. Pure: no I/O, no clock, no
// NVML; what the collector knows about freshness comes in through ExportView.
//
// Rules: an absent reading (unsupported, failed, not read) gives NO series, never 0.
// A GPU that is not up (lost, inaccessible, or its sample is stale because an NVML call
// hangs) keeps gpuwatch_gpu_info, gpuwatch_up 0 and its sample age, and drops its
// field series (old values are not passed off as current).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.hpp"
#include "attribution/gpu_owners.hpp"
#include "diagnose/finding.hpp"
#include "alerts/alert.hpp"
#include "exporter/xid_count.hpp"
#include "host/process_info.hpp"

namespace gpuwatch::exporter {

// What the collector knows about one GPU besides its readings.
struct DeviceStatus {
  bool has_sample = false;                    // at least one sample finished
  bool up = false;                            // sample fresh and the device Ok
  double sample_age_seconds = 0;              // now - start of the last finished sample
  double collect_duration_seconds = 0;        // how long that sample took
};

// Failed NVML reads (not the cached "not supported"), counted since start.
struct NvmlErrorCount {
  std::string field;  // the field's query name, e.g. "power.draw"
  int code = 0;       // nvmlReturn_t
  std::uint64_t count = 0;
};

struct ExportView {
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

struct EncodeOptions {
  bool per_process = false;      // gpuwatch_process_* series (pid, process_name, user)
  std::string_view version = "";  // gpuwatch_build_info{version}
  bool compat_dcgm = false;       // also dcgm-exporter's DCGM_FI_* families (dcgm_compat.def)
  std::string_view hostname = "";  // their Hostname label
  bool compat_nvidia_smi = false;  // also nvidia_gpu_exporter's nvidia_smi_* families (nvidia_smi_compat.def)
  // serve --attribution-labels: dcgm-exporter's pod, namespace, container and hpc_job labels on
  // every per-GPU series (opt-in: they multiply series as jobs come and go).
  bool attribution_labels = false;
};

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kOpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

// Appends the exposition to OUT (cleared first); reuse OUT across scrapes.
void encode_prometheus(const ExportView& view, const EncodeOptions& options, std::string& out);
std::string encode_prometheus(const ExportView& view, const EncodeOptions& options);

// Rewrites an exposition made by encode_prometheus as OpenMetrics 1.0: a counter family's
// HELP/TYPE name loses its _total suffix (samples keep it), a counter whose name has no
// _total (dcgm-exporter's) is typed unknown, and the text ends with "# EOF".
void to_openmetrics(std::string& text);
// True when an Accept header prefers OpenMetrics (as Prometheus 2.x sends it).
bool accepts_openmetrics(std::string_view accept);

// Label value escaping of the text format: backslash, double quote and newline, after controls and
// invalid UTF-8 are shown visibly (core::terminal_lines: "\x1b", "\xff"; a LF stays \n; issue 31).
std::string escape_label_value(std::string_view value);
// A sample value: integers exactly, doubles shortest round-trip, NaN, +Inf, -Inf.
std::string format_sample_value(const core::FieldValue& value);

}  // namespace gpuwatch::exporter
