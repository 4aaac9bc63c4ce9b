#pragma once
// The vendor seam: what gpuwatch asks of a GPU vendor's library, in the spirit of nvtop's
// `struct gpu_vendor` table. One implementation per vendor, in the vendor's own folder
// (NVIDIA's over NVML: src/nvml/nvml_backend.hpp); everything above speaks this interface and
// core's types only (core::Source read groups, core::ReadError reasons, core::DeviceSnapshot).
// Commands and the C API open "the backends" (backends.hpp), never a vendor library.
//
// Cost: one virtual call per read group (Source) per device per sample; no allocation on the
// sampling path beyond what the vendor's reads need themselves.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "core/read_error.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::backend {

class DeviceBackend;

// A device as its backend knows it (opaque; from handle_by_index). OWNER is the backend that
// made it, so a set of backends hands each call to the right one. Empty: no device.
struct DeviceHandle {
  const DeviceBackend* owner = nullptr;
  const void* raw = nullptr;
  explicit operator bool() const { return raw != nullptr; }
  bool operator==(const DeviceHandle&) const = default;
};

// What a device is, read once (from the Name, Uuid and PciInfo read groups).
struct StaticInfo {
  std::optional<std::string> name, uuid, pci_bus_id;
};

// A critical device error event (NVIDIA's Xid): the device's global index and the event's code.
struct DeviceEvent {
  unsigned gpu = 0;
  std::uint64_t code = 0;
};

// The device error events of the GPUs that support them, read by waiting with a timeout.
class EventSource {
 public:
  enum class Wait : std::uint8_t {
    Event,     // EVENT is filled
    Skipped,   // an event of no interest (another kind, a device not watched): wait again
    TimedOut,  // nothing came within the timeout
    Failed,    // the wait failed (driver trouble): back off before waiting again
  };
  virtual ~EventSource() = default;
  // The devices registered for events (global indices).
  virtual std::vector<unsigned> watched_gpus() const = 0;
  // Waits at most TIMEOUT_MS (0: only what is waiting now) for the next event.
  virtual Wait wait(unsigned timeout_ms, DeviceEvent& event) = 0;
  // The events waiting now, oldest first, at most MAX (timeout 0); a failing wait or none
  // waiting ends the drain.
  std::vector<DeviceEvent> drain(std::size_t max = 256);
};

// The reads that keep state between samples of one device (profiling metrics over the window
// since the previous sample, the driver's utilization sample buffer, MIG devices): the
// Source::Gpm and Source::SampleBuffer fields, mig_devices and gpu_instance_activity.
class ProfilingReader {
 public:
  virtual ~ProfilingReader() = default;
  // Completes DEVICE, just sampled through DEV. A device that is not Ok (or no handle) gets
  // none of them, and the windows start over once it answers again.
  virtual void read(DeviceHandle dev, core::DeviceSnapshot& device) = 0;
  // Only the Source::SampleBuffer fields, for the interval up to AT (a sample's time, virtual on
  // the simulator: sim_session's timeline). A device that is not Ok starts the interval over.
  virtual void read_sample_buffer(DeviceHandle dev, core::DeviceSnapshot& device,
                                  std::chrono::system_clock::time_point at) = 0;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  virtual core::Vendor vendor() const = 0;
  // The vendor of device INDEX (a set of backends: the one that owns it).
  virtual core::Vendor vendor_of(unsigned /*index*/) const { return vendor(); }
  // Where the backend comes from (a library path), for messages.
  virtual std::string describe() const = 0;

  // Enumerate: how many devices the backend sees now.
  virtual core::ReadError device_count(unsigned* count) const = 0;
  // The device at INDEX (0..device_count-1).
  virtual core::ReadError handle_by_index(unsigned index, DeviceHandle* handle) const = 0;

  // One read group of DEV: writes a reading for each of FIELDS (all of that source) into DEVICE,
  // converting to base units. Returns the worst error (GpuLost makes the caller stop asking).
  virtual core::ReadError read_source(DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                                      core::DeviceSnapshot& device) const = 0;
  // The processes on DEV (compute and graphics, merged by pid) into device.processes and
  // processes_status / processes_error. With UTILIZATION_SINCE_US (not null) also per-process
  // utilization newer than it, which is advanced to the newest sample used.
  virtual core::ReadError read_processes(DeviceHandle dev, unsigned long long* utilization_since_us,
                                         core::DeviceSnapshot& device) const = 0;

  // The driver's version (into OUT), and the CUDA version it supports (e.g. 12020).
  virtual core::ReadError driver_version(std::string& out) const = 0;
  virtual core::ReadError cuda_driver_version(int* version) const = 0;

  // The vendor's text for ERROR ("GPU is lost"), and the error this backend gives REASON (its
  // vendor code): what the sampler reports for errors it makes up (a timed-out GPU, a lost GPU
  // still backing off, a driver version it could not read).
  virtual std::string error_text(core::ReadError error) const = 0;
  virtual core::ReadError error_of(core::ErrorReason reason) const = 0;
  // The latest failure any call of this backend answered (None when none did yet).
  virtual core::ReadError last_error() const = 0;

  // A stateful reader of device INDEX's profiling reads (one per sampling thread), and the
  // device error events of devices 0..GPU_COUNT-1 (a backend without events: one that never has any).
  virtual std::unique_ptr<ProfilingReader> profiling_reader(unsigned index) const = 0;
  virtual std::unique_ptr<EventSource> open_events(unsigned gpu_count) const = 0;

  // The simulated driver's controls (sim/): the clock every read follows from then on (Unix ms,
  // 0 for the real clock) and the scenario's time scale. A real driver: false / nullopt.
  virtual bool set_sim_clock(long long /*unix_ms*/) const { return false; }
  virtual bool has_sim_clock() const { return false; }
  virtual std::optional<double> sim_time_scale() const { return std::nullopt; }

  // Static info of device INDEX, through the Name, Uuid and PciInfo read groups.
  StaticInfo static_info(unsigned index) const;
};

}  // namespace gpuwatch::backend
