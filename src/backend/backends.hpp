#pragma once
// "The backends": every device backend that opened on this machine, as one DeviceBackend with
// global device indices (the first backend's devices first, 0..n-1, then the next one's). What
// every command and the C API open. A backend that fails to open leaves the others working;
// its message is kept (failures()) for the command to print.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/device_backend.hpp"
#include "backend/simulated_tree.hpp"
#include "core/result.hpp"

namespace gpuwatch::backend {

// Where each vendor's library is (empty: the loader's default).
struct OpenOptions {
  std::string nvidia_library;  // --nvml-library / GPUWATCH_NVML_LIBRARY
  // Where the backends that read files (AMD's, Intel's) find /sys and /proc: "/" on a real
  // machine, the simulated host root (GPUWATCH_HOST_ROOT) on the simulator.
  std::string host_root = "/";
  // Intel's Level Zero loader (empty: libze_loader.so.1 from the loader's path; "none": not used).
  std::string level_zero_library;
  // On the simulator with AMD or Intel GPUs: the tree of files they read, kept up to date.
  std::shared_ptr<SimulatedTree> simulated_tree;
};

// One row of the vendor table: a name and how to open that vendor's backend.
struct Opener {
  std::string_view name;
  core::Result<std::unique_ptr<DeviceBackend>> (*open)(const OpenOptions& options);
};

struct OpenFailure {
  std::string backend;  // the opener's name
  std::string message;  // what is missing, what to check
};

class Backends final : public DeviceBackend {
 public:
  explicit Backends(std::vector<std::unique_ptr<DeviceBackend>> opened, std::vector<OpenFailure> failures = {});
  // Opens every row of TABLE, in order.
  static std::unique_ptr<Backends> open(std::span<const Opener> table, const OpenOptions& options);

  bool empty() const { return backends_.empty(); }
  std::size_t size() const { return backends_.size(); }
  const DeviceBackend& at(std::size_t i) const { return *backends_[i]; }
  const std::vector<OpenFailure>& failures() const { return failures_; }
  // The failures' messages, one a line ("" when none failed).
  std::string failure_text() const;

  // The backend of global device INDEX and its index there; {nullptr, 0} past the end.
  std::pair<const DeviceBackend*, unsigned> locate(unsigned index) const;

  core::Vendor vendor() const override;  // the first backend's
  core::Vendor vendor_of(unsigned index) const override;
  std::string describe() const override;
  core::ReadError device_count(unsigned* count) const override;
  core::ReadError handle_by_index(unsigned index, DeviceHandle* handle) const override;
  core::ReadError read_source(DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                              core::DeviceSnapshot& device) const override;
  core::ReadError read_processes(DeviceHandle dev, unsigned long long* utilization_since_us,
                                 core::DeviceSnapshot& device) const override;
  core::ReadError driver_version(std::string& out) const override;
  core::ReadError cuda_driver_version(int* version) const override;
  // A code's text is its vendor's backend's (codes are in per-vendor ranges: core::vendor_of_code);
  // the errors made up for a reason are the first backend's.
  std::string error_text(core::ReadError error) const override;
  core::ReadError error_of(core::ErrorReason reason) const override;
  core::ReadError last_error() const override;
  std::unique_ptr<ProfilingReader> profiling_reader(unsigned index) const override;
  std::unique_ptr<EventSource> open_events(unsigned gpu_count) const override;
  bool set_sim_clock(long long unix_ms) const override;
  bool has_sim_clock() const override;
  std::optional<double> sim_time_scale() const override;

 private:
  std::vector<std::unique_ptr<DeviceBackend>> backends_;
  std::vector<OpenFailure> failures_;
};

}  // namespace gpuwatch::backend
