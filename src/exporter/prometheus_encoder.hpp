#pragma once
// Snapshot -> Prometheus text exposition format 0.0.4. Pure: no I/O, no clock, no
// NVML; what the collector knows about freshness comes in through LiveView.
//
// Rules: an absent reading (unsupported, failed, not read) gives NO series, never 0.
// A GPU that is not up (lost, inaccessible, or its sample is stale because an NVML call
// hangs) keeps gpuwatch_gpu_info, gpuwatch_up 0 and its sample age, and drops its
// field series (old values are not passed off as current).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.hpp"
#include "live/view.hpp"

namespace gpuwatch::exporter {

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
void encode_prometheus(const live::LiveView& view, const EncodeOptions& options, std::string& out);
std::string encode_prometheus(const live::LiveView& view, const EncodeOptions& options);

// Rewrites an exposition made by encode_prometheus as OpenMetrics 1.0: a counter family's
// HELP/TYPE name loses its _total suffix (samples keep it), a counter whose name has no
// _total (dcgm-exporter's) is typed unknown, and the text ends with "# EOF".
void to_openmetrics(std::string& text);
// True when an Accept header prefers OpenMetrics (as Prometheus 2.x sends it).
bool accepts_openmetrics(std::string_view accept);

}  // namespace gpuwatch::exporter
