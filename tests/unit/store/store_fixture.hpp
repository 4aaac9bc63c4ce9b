#pragma once
// Temporary folder per test, and snapshots built by hand for the store tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/snapshot.hpp"

namespace gpuwatch::store::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-store-XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::chrono::system_clock::time_point at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

// A device as the sampler would give it: identity, a few values, power unsupported.
inline core::DeviceSnapshot make_device(unsigned index, double utilization, std::uint64_t memory_used_bytes) {
  using core::FieldId;
  using core::FieldReading;
  core::DeviceSnapshot device;
  device.index = index;
  device.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-0000000" + std::to_string(index)));
  device.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA A100-SXM4-80GB"));
  device.get(FieldId::PciBusId) = FieldReading::of(std::string("00000000:0" + std::to_string(index) + ":00.0"));
  device.get(FieldId::Index) = FieldReading::of(std::int64_t{index});
  device.get(FieldId::UtilizationGpu) = FieldReading::of(utilization);
  device.get(FieldId::MemoryUsed) = FieldReading::of(memory_used_bytes);
  device.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{61});
  device.get(FieldId::ClocksCurrentSm) = FieldReading::of(std::uint64_t{1410000000});
  device.get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  device.get(FieldId::FanSpeed) = FieldReading::of(0.0);  // a real zero, distinct from absent
  return device;
}

inline core::Snapshot make_snapshot(std::int64_t time_ms, unsigned devices) {
  core::Snapshot snapshot;
  snapshot.timestamp = at_ms(time_ms);
  snapshot.device_count = devices;
  for (unsigned i = 0; i < devices; ++i) {
    snapshot.devices.push_back(make_device(i, 0.25 + 0.01 * i, (1ULL << 30) * (i + 1)));
  }
  return snapshot;
}

}  // namespace gpuwatch::store::testing
