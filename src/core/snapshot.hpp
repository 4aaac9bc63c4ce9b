#pragma once
// A sample of the whole machine: what every reader (status, query, dmon, pmon,
// exporter, recorder) works from. Plain values; absent is std::nullopt plus a reason.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/field.hpp"

namespace gpuwatch::host_signals {
struct HostSample;  // host_signals/host_sample.hpp (a plain struct: include it to read one)
}

namespace gpuwatch::core {

enum class ProcessType : std::uint8_t { Compute, Graphics, ComputeAndGraphics };
const char* to_string(ProcessType type);  // "C", "G", "C+G" (nvidia-smi's letters)

struct ProcessSample {
  std::uint32_t pid = 0;
  std::string name;                              // the process name as the driver gives it; "" if unknown
  std::optional<std::uint64_t> used_memory_bytes;  // nullopt: the driver reports "not available"
  ProcessType type = ProcessType::Compute;
  std::optional<std::uint32_t> gpu_instance_id;    // MIG ids; nullopt when MIG is off
  std::optional<std::uint32_t> compute_instance_id;
  // Per-process utilization (the driver's per-process samples), only when requested
  // and reported for this pid in the last period. Ratios 0..1.
  std::optional<double> sm_ratio, memory_ratio, encoder_ratio, decoder_ratio;
};

// One MIG device (a compute instance inside a GPU instance) of a GPU in MIG mode.
struct MigDeviceSample {
  std::string uuid;                      // "MIG-..."
  std::string profile;                   // "3g.40gb", "1c.3g.40gb" (from the MIG device name)
  std::uint32_t gpu_instance_id = 0;
  std::uint32_t compute_instance_id = 0;
  // The GPU instance's memory (shared by its compute instances); nullopt: not readable.
  std::optional<std::uint64_t> memory_total_bytes, memory_used_bytes, memory_free_bytes, memory_reserved_bytes;
};

// GPM activity of one MIG GPU instance over the window since the previous sample
// (the backend's profiling reader; NVIDIA Hopper and later). Absent from the list at the first sample.
struct GpuInstanceActivity {
  std::uint32_t gpu_instance_id = 0;
  std::vector<std::pair<FieldId, double>> ratios;  // the Source::Gpm fields, base units (0..1)
  std::optional<double> pcie_tx_bytes_per_s, pcie_rx_bytes_per_s;
};

enum class DeviceState : std::uint8_t {
  Ok,            // handle obtained; fields read (each with its own status)
  Lost,          // ErrorReason::GpuLost (from the handle or any call): fields not read
  Inaccessible,  // getting the device's handle failed otherwise (no permission, unknown...)
  TimedOut,      // a driver call did not answer within the command's deadline (a hung GPU):
                 // fields absent (Failed, ErrorReason::Timeout), never zero (issue 16)
};
const char* to_string(DeviceState state);

struct DeviceSnapshot {
  unsigned index = 0;                 // global device index (backend::Backends)
  Vendor vendor = Vendor::Nvidia;     // whose backend read it
  DeviceState state = DeviceState::Ok;
  ReadError error;                    // the error behind a non-Ok state
  std::vector<FieldReading> readings = std::vector<FieldReading>(kFieldCount);  // indexed by FieldId

  // Processes: read only when SampleOptions::processes is set.
  FieldStatus processes_status = FieldStatus::NotRead;
  ReadError processes_error;
  std::vector<ProcessSample> processes;

  // MIG devices and their GPU instances' activity: filled by the exporter's collector
  // (sampler::ProfilingSampler), empty when MIG is off or nothing read them.
  std::vector<MigDeviceSample> mig_devices;
  std::vector<GpuInstanceActivity> gpu_instance_activity;

  const FieldReading& get(FieldId id) const { return readings[index_of(id)]; }
  FieldReading& get(FieldId id) { return readings[index_of(id)]; }
};

struct Snapshot {
  std::chrono::system_clock::time_point timestamp;  // when the sample started
  std::optional<std::string> driver_version;        // the driver's version
  std::optional<int> cuda_driver_version;           // e.g. 12020: the CUDA version the driver supports
  unsigned device_count = 0;                        // the backends' device count
  std::vector<DeviceSnapshot> devices;              // the devices sampled, in index order
  // The backend's error text for every vendor code (ReadError::vendor_code) that appears in this
  // snapshot (maybe more), so renderers can print nvidia-smi's "[<error string>]" without
  // calling the driver.
  std::map<int, std::string> error_strings;
  // What the host was doing at this sample (CPU, pressure, memory, disks, network, the GPU
  // processes' trees: issue 25), when it was read: the live collector, `record`, `run`, `sim record`
  // and the history rebuilding its samples attach it. Null: not read (a one-shot reader, --no-host).
  std::shared_ptr<const host_signals::HostSample> host;

  // The text of a vendor code: "Unknown Error (code)" if not recorded.
  std::string error_string(int vendor_code) const;
  std::string error_string(const ReadError& error) const { return error_string(error.vendor_code); }
  // Whether a device sampled is not Ok (lost, inaccessible, timed out): the partial exit code.
  bool any_device_failed() const;
  // Whether a reader names each GPU's vendor: some GPU is not NVIDIA's (a mixed node, or an AMD or
  // Intel one). A node of NVIDIA GPUs alone shows what it always showed.
  bool names_vendors() const;
};

}  // namespace gpuwatch::core
