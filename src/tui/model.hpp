#pragma once
// What `top` shows, as plain values: one GpuView per GPU and one ProcessView per GPU process,
// built from the collector's latest samples (never from NVML) and what /proc says about each
// process. Absent stays absent (std::nullopt): it prints N/A, never 0.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"
#include "live/view.hpp"
#include "host/process_info.hpp"
#include "host_signals/host_sample.hpp"
#include "terminal/severity.hpp"

namespace gpuwatch::tui {

// A MIG device (compute instance) shown under its parent GPU.
struct MigView {
  std::string profile;  // "3g.40gb"
  std::uint32_t gpu_instance_id = 0, compute_instance_id = 0;
  std::optional<double> memory_used_bytes, memory_total_bytes;
};

enum class GpuHealth : std::uint8_t {
  Waiting,  // no sample finished yet
  Up,       // fresh sample, GPU answers
  Stale,    // the latest sample is older than stale_after: an NVML call hangs (values are the last good ones)
  Lost,     // NVML says the GPU is lost or inaccessible
  Down,     // a remote host that does not answer
};

struct GpuView {
  unsigned index = 0;
  std::string host;  // "" on the local machine; the host's name with --connect
  std::string name;
  core::Vendor vendor = core::Vendor::Nvidia;
  std::string vendor_tag;  // "amd", shown before the name on a mixed screen (tag_vendors); "" otherwise
  GpuHealth health = GpuHealth::Waiting;
  double age_seconds = 0;  // of the latest sample
  std::string error;       // why not Up, in words ("GPU is lost")
  std::optional<double> utilization_ratio, memory_used_bytes, memory_total_bytes, power_w, power_limit_w,
      temperature_c, slowdown_c, sm_clock_hz, sm_max_hz, memory_clock_hz, pcie_rx_bytes_per_s,
      pcie_tx_bytes_per_s, fan_ratio;
  std::string throttle;  // "thermal", "power cap" ...: clocks held down for a reason that matters; "" none
  terminal::Severity throttle_severity = terminal::Severity::Ok;
  std::string finding;   // the worst active diagnose finding's summary; "" none
  diagnose::Severity finding_severity = diagnose::Severity::Info;
  std::vector<MigView> mig;

  std::optional<double> memory_ratio() const;
  std::optional<double> power_ratio() const;
};

struct ProcessView {
  std::uint32_t pid = 0;
  unsigned gpu = 0;
  std::string host;  // "" local
  core::ProcessType type = core::ProcessType::Compute;
  std::optional<std::uint32_t> gpu_instance_id;  // MIG
  std::optional<std::string> user;
  std::optional<double> gpu_ratio;          // per-process SM utilization
  std::optional<double> gpu_memory_bytes;
  std::optional<double> cpu_ratio;          // 1.0 = one core
  std::optional<double> rss_bytes;
  std::optional<double> elapsed_seconds;    // run time
  std::string command;                      // command line, else NVML's process name
  std::optional<std::string> owner;         // container / pod / Slurm job (attribution's summary)
  std::optional<std::uint32_t> ppid;        // parent PID (local processes; the tree view)
  // The tree view (process_tree.hpp): the row's depth, and whether it is a host process shown only
  // as the parent of GPU processes (no GPU columns).
  int depth = 0;
  bool host_only = false;
};

// Host-side facts of a process: /proc (host::ProcessInfo) plus its run time and parent.
struct HostProcess {
  host::ProcessInfo info;
  std::optional<double> elapsed_seconds;
  std::optional<std::uint32_t> ppid;
};

// The host line under the title (issue 25): status's host line parts (status/host_line.hpp) in its
// wide and compact forms, made once per sample so that a frame only picks the form and the parts
// that fit its width (no formatting per frame).
struct HostLineView {
  std::vector<std::string> wide, brief;  // absent parts left out; empty: nothing readable (N/A)
  terminal::Severity cpu = terminal::Severity::Ok;  // the CPU part's colour (its busy share)
};

struct Model {
  std::vector<GpuView> gpus;
  std::vector<ProcessView> processes;
  std::optional<std::string> driver_version;
  std::string note;  // e.g. "[simulated: demo]"
  // The host processes above the GPU processes (by PID), read only while the tree view is on.
  std::map<std::uint32_t, HostProcess> ancestors;
  // What the host was doing (the snapshot's host sample); absent: not read (--no-host, --connect): no line.
  std::optional<HostLineView> host_line;
};

// The host line's parts, from the snapshot's host sample.
HostLineView make_host_line_view(const host_signals::HostSample& host);

// One GPU as shown, from its latest sample and the collector's status of it. FINDINGS: active
// findings of every GPU (those involving DEVICE are used).
GpuView make_gpu_view(const core::DeviceSnapshot& device, const live::DeviceStatus& status,
                      std::span<const diagnose::Finding> findings);

// Sets every GPU's vendor_tag when some GPU on the screen is not NVIDIA's (a mixed node or a mix of
// hosts, issue 28); clears them otherwise, so a screen of NVIDIA GPUs alone stays as it was.
void tag_vendors(std::vector<GpuView>& gpus);

// The processes of every GPU in SNAPSHOT, with what HOST knows of each (by PID) and the users the
// collector resolved (USERS, by PID) as a fallback.
std::vector<ProcessView> make_process_views(const core::Snapshot& snapshot,
                                            const std::map<std::uint32_t, HostProcess>& host,
                                            const std::map<std::uint32_t, std::string>& users);

}  // namespace gpuwatch::tui
