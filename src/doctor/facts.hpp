#pragma once
// What the doctor's checks look at, gathered at the edges (host_facts.hpp from files under the
// host root and the environment, nvml/driver_probe.hpp from NVML). Plain values: every check is a pure
// function of these, and a test builds them by hand. Absent (nullopt) means "could not be
// read", never zero or "off".
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::doctor {

struct DeviceNode {
  std::string name;        // "nvidia0", "nvidiactl", "nvidia-uvm"
  bool accessible = false; // its mode bits let this user read and write it
};

struct KernelXid {
  std::string pci;         // as the kernel names the GPU: "0000:3b:00"
  unsigned xid = 0;
  std::string line;        // the whole log line (untrusted text)
};

struct HostFacts {
  std::string root = "/";                       // the host root the files were read under
  std::optional<std::string> module_version;    // from proc/driver/nvidia/version; nullopt: file absent
  std::optional<bool> module_listed;            // proc/modules lists "nvidia"; nullopt: unreadable
  std::vector<DeviceNode> device_nodes;         // dev/nvidia*
  bool dev_readable = true;                     // the dev folder could be listed
  std::string container;                        // "docker", "podman", "container" (cgroup) or ""
  std::optional<std::string> cuda_visible_devices;    // the variables, when set
  std::optional<std::string> nvidia_visible_devices;
  std::optional<std::string> cgroup_devices;    // cgroup v1 devices.list of this process, when readable
  bool kernel_log_readable = false;
  std::string kernel_log_source;                // "/dev/kmsg", "journalctl -k"
  std::vector<KernelXid> xids;
};

struct GpuFacts {
  unsigned index = 0;
  bool answered = true;                 // false: its calls did not return within the deadline
  std::optional<std::string> lost;      // why its handle failed (GPU is lost...)
  std::string name, uuid, bus_id;
  std::optional<bool> persistence;
  std::optional<bool> mig_current, mig_pending;
  std::optional<bool> ecc_current, ecc_pending;
  std::optional<bool> retired_pages_pending;
  std::optional<bool> remap_pending, remap_failure;
  std::optional<unsigned> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<double> power_limit_w, power_default_w;
  std::optional<unsigned> app_clock_mhz, default_app_clock_mhz;
  std::optional<int> compute_mode;      // NVML compute mode: 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process
  std::optional<unsigned> fabric_state; // NVML fabric state (0 not supported ... 3 completed); nullopt or 0: no fabric
  std::optional<int> fabric_status;     // NVML return code of the registration, when the state is completed
  std::optional<double> temperature_c;
  std::optional<double> utilization_ratio;
};

struct NvmlFacts {
  bool loaded = false;
  bool answered = true;                 // false: loading or initialising did not finish in time
  std::string error;                    // why it could not be loaded (first line of the loader's message)
  int error_code = 0;                   // NVML return code of a failed init (18: version mismatch), 0 otherwise
  bool library_found = true;            // false: dlopen failed
  std::string library;                  // the path or name loaded
  std::chrono::milliseconds init_time{0};  // load + NVML init: the first call's cost
  std::optional<std::string> driver_version;  // the driver version NVML reports
  std::optional<unsigned> device_count;
  std::vector<GpuFacts> gpus;
};

struct MonitoringFacts {
  std::vector<std::string> running;     // "serve (pid 123)", "record (pid 456)"
  std::string database;                 // the default history database path ("" when none)
  std::optional<std::uint64_t> database_bytes;
  std::optional<std::uint64_t> free_bytes, total_bytes;  // of the database's file system
};

}  // namespace gpuwatch::doctor
