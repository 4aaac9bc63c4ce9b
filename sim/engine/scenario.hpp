#pragma once
// The scenario model: what a YAML scenario file says, after parsing and applying the
// model catalog's defaults. The driver compiles it into a Simulation (simulation.hpp).
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/read_error.hpp"
#include "sim/engine/host_values.hpp"
#include "sim/engine/query_keys.hpp"
#include "sim/engine/value.hpp"

namespace gpuwatch::sim {

using ValueMap = std::array<Value, kKeyCount>;

enum class PhaseKind {
  Idle, Training, DataloaderStarvation, SmallKernels, MemoryBound, MemoryLeak, Fragmentation,
  Hung, ThermalRunaway, PowerCapping, Replay, GpuLost, EccErrors, NcclHang
};
const char* phase_kind_name(PhaseKind kind);
std::optional<PhaseKind> phase_kind_from_name(std::string_view name);

struct ReplayRow {
  double t_s = 0;  // offset from the start of the phase, scenario seconds
  std::vector<std::pair<Key, Value>> values;
};

// When the GPU's NVLink traffic (its nvlink.tx_throughput / nvlink.rx_throughput) flows in a phase
// (issue 25): with the load (the rate times the utilization share, the default), in the GPU's gaps
// (times the idle share: a synchronisation-bound job exchanges gradients while its kernels wait),
// or steadily (the full rate the whole phase).
enum class NvlinkTraffic { Load, Gaps, Steady };

struct Phase {
  PhaseKind kind = PhaseKind::Idle;
  double duration_s = 60;       // scenario seconds
  double intensity = 1.0;       // 0..1 scale of the load (training, memory_bound ...)
  bool processes_visible = true;
  double sbe_per_min = 0;       // ecc_errors
  double dbe_per_min = 0;
  double remap_per_min = 0;
  unsigned xid = 0;             // ecc_errors: Xid delivered with each uncorrectable error
  int recovery_action = -1;     // ecc_errors: recovery action raised with each of its Xids (-1: none)
  std::vector<ReplayRow> rows;  // replay
  bool replay_loop = false;
  std::string source;           // replay: file it came from (for describe)
  // Shape of the pathological phases (docs/simulator.md); the defaults are the classic shapes.
  double busy_s = 5, idle_s = 3;   // dataloader_starvation: the utilization ramp, then the gap at 0
  double ramp_s = -1;              // dataloader_starvation: how long each busy part ramps up (-1: all of it, the
                                   //   classic saw; 0: kernels run the whole busy part, a square wave)
  double sm_share = 0.30;          // small_kernels: share of the SMs the kernels keep busy (GPM, power)
  double leak_mib_per_s = 0;       // memory_leak: growth rate; 0: fill the free memory by the phase's end
  double peak_temp_c = 0;          // thermal_runaway: temperature reached at the end; 0: slowdown + 6
  double cache_fraction = 0.75;    // fragmentation: share of the free memory the allocator's cache takes
  double cache_growth_s = 0;       // fragmentation: time to ~95 % of it; 0: half the phase
  double clock_ratio = 0.78;       // power_capping: SM clock as a share of the maximum
  double power_ratio = 1.25;       // nccl_hang: power as a multiple of the idle power
  double memory_util = 0;          // nccl_hang: memory utilization (%) while spinning (NCCL's polling)
  NvlinkTraffic nvlink = NvlinkTraffic::Load;  // `nvlink: load|gaps|steady` (issue 25)
};

struct Process {
  std::string command;  // command line shown to clients
  std::string user;
  double memory_mib = 0;
  bool compute = true;
  bool graphics = false;
  std::optional<unsigned> pid;  // fixed PID
  std::string pid_env;          // PID read from this environment variable
  std::string pid_file;         // PID read from this file at every process query (gpuwatch run's tests)
  bool follows_phase = true;    // memory grows with leak phases (first process only)
};

struct ScheduledEvent {
  double at_s = 0;
  std::uint64_t type = 0;  // nvmlEventType*
  std::uint64_t data = 0;  // Xid number for XidCriticalError
  int recovery_action = -1;  // from this event on, gpu_recovery_action (0-4); -1: unchanged
};

struct MigInstance {
  std::string profile;     // e.g. "3g.40gb"
  double memory_mib = 0;
  unsigned gpu_instance_id = 0;
  unsigned compute_instance_id = 0;
  double memory_used_mib = 0;
  std::vector<Process> processes;
};

struct GpuSpec {
  std::string model;
  // Whose GPU it is (`vendor:`, else the catalog model's): NVIDIA's are served by the simulated
  // NVML driver, AMD's and Intel's as kernel files under the simulated host root
  // (vendor_tree.hpp) and Intel's also by the simulated Level Zero driver (sim/ze_driver).
  core::Vendor vendor = core::Vendor::Nvidia;
  ValueMap values;               // model defaults with the scenario's overrides
  std::array<bool, kKeyCount> overridden{};  // set by the scenario (not the catalog)
  std::vector<Phase> phases;
  bool loop = true;
  std::vector<Process> processes;
  std::vector<ScheduledEvent> events;
  std::vector<MigInstance> mig;
  std::uint64_t seed = 0;
  double noise = 1.0;            // scale of the measurement noise
  // The driver's utilization sample period (scenario seconds): utilization.gpu/.memory are the
  // busy share of the last whole period, and nvmlDeviceGetSamples serves one sample per period.
  // The catalog's data-center boards 1/6 s, GeForce boards 1 s (docs/simulator.md says why).
  double sample_period_s = 1.0 / 6;
};

struct Fault {
  std::string function;          // NVML symbol name
  int gpu = -1;                  // -1: every GPU (and functions without a GPU)
  double from_s = 0;
  double until_s = std::numeric_limits<double>::infinity();
  int error = 0;                 // NVML return code to return (0: none)
  double delay_ms = 0;           // extra time inside the call
  double hang_s = 0;             // the call blocks this long (then returns normally / the error)
};

struct DriverSpec {
  std::string version = "535.261.03";
  std::string nvml_version;      // default "12." + version
  int cuda_version = 12020;
  bool legacy_symbols = false;   // `symbols: legacy`: run on build/sim-driver-legacy/
  int init_error = 0;            // nvmlInit* returns this
};

// The simulated host around the driver (`host:`), written as files under the simulated host
// root (GPUWATCH_HOST_ROOT: proc/, dev/, the container markers) for `gpuwatch doctor`.
struct KernelLogXid {
  double at_s = 0;    // seconds after boot the line carries
  unsigned gpu = 0;   // the GPU whose PCI address the line names
  unsigned xid = 0;
};

enum class DeviceNodes { Present, Missing, Unreadable };

// The simulated host's CPU, memory, disks, network and InfiniBand (`host: signals:`, issue 25),
// rendered as /proc and /sys files under the simulated host root (host_signal_tree.hpp).
struct HostPhase {
  double duration_s = 60;  // scenario seconds
  HostValues values{};     // the table's fallbacks with the phase's values
  HostValues gap_values{}; // while GPU 0 sits in a gap (its load at 0): values with `gaps:` over them
  bool has_gaps = false;   // `gaps:` given
};

struct HostInfiniband {
  std::string device;  // sys/class/infiniband/<device>
  unsigned ports = 1;  // ports/1 .. ports/N
};

struct HostSignals {
  unsigned cores = 16;
  double memory_bytes = 256.0 * 1024 * 1024 * 1024;
  double swap_bytes = 0;
  std::vector<std::string> disks{"nvme0n1"};
  std::vector<std::string> interfaces{"eth0"};
  std::vector<HostInfiniband> infiniband;
  std::vector<HostPhase> phases;  // loop on the scenario clock, like the GPUs' (never empty)
  double cycle_s() const {
    double s = 0;
    for (const auto& p : phases) s += p.duration_s;
    return s;
  }
};

struct HostSpec {
  bool module_loaded = true;            // proc/modules lists nvidia, proc/driver/nvidia/version exists
  std::string module_version;           // the kernel module's version; empty: the driver's
  DeviceNodes device_nodes = DeviceNodes::Present;  // dev/nvidia0.. dev/nvidiactl dev/nvidia-uvm
  std::string container;                // "", "docker" (/.dockerenv) or "podman" (/run/.containerenv)
  std::vector<KernelLogXid> kernel_log; // NVRM Xid lines in dev/kmsg
  std::optional<HostSignals> signals;   // absent: no simulated /proc/stat (the real host is read)
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source;            // file path or "builtin:NAME"
  double time_scale = 1.0;
  // `start_time`: the wall time of scenario time 0, in ms since the epoch (`sim import
  // --keep-time`: a log's first timestamp). `sim record` renders from it instead of ending now.
  std::optional<std::int64_t> start_ms;
  std::uint64_t seed = 1;
  DriverSpec driver;
  std::vector<GpuSpec> gpus;
  std::vector<Fault> faults;
  HostSpec host;
};

}  // namespace gpuwatch::sim
