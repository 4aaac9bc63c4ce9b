#pragma once
// The amdgpu DRM clients of the host, from ROOT/proc/<pid>/fdinfo/<fd> (drm-usage-stats.rst),
// and each card's processes made from them (core::ProcessSample), with per-process
// utilization from the clients' engine time between two reads.
//
// Cost: one scan of ROOT/proc serves every card of the backend (a scan is reused for
// kScanReuse, or until the simulated clock moves). Which (pid, fd) are amdgpu files is
// remembered: an amdgpu one is read at every scan (its counters are the data), one that is not
// is skipped without a read for kRecheckAfter (a fd number reused by a DRM file within that
// time is seen late); a DRM file is recognised by its /proc/<pid>/fd link (/dev/dri/...)
// where there is one (the simulator writes fdinfo files only: those are read).
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "amd/amd_card.hpp"
#include "core/read_error.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::amd {

// One open DRM file of an amdgpu GPU (one fdinfo).
struct DrmClient {
  std::uint32_t pid = 0;
  std::uint64_t client_id = 0;
  std::string pdev;                          // "0000:c1:00.0"
  std::uint64_t gfx_ns = 0, compute_ns = 0;  // engine busy time so far
  std::optional<std::uint64_t> vram_bytes;
};

struct DrmScan {
  std::vector<DrmClient> clients;
  long long at_ms = 0;    // when it was taken (Unix ms; the simulated clock on the simulator)
  core::ReadError error;  // ROOT/proc unreadable
};

class DrmClientScanner {
 public:
  static constexpr std::chrono::milliseconds kScanReuse{100};
  static constexpr std::chrono::seconds kRecheckAfter{5};

  explicit DrmClientScanner(std::string root);
  // The clients now: a fresh scan (taken at NOW_MS), or the last one when it is younger than
  // kScanReuse and CLOCK_KEY (the simulated clock, 0 for none) has not moved. Thread-safe.
  std::shared_ptr<const DrmScan> scan(long long clock_key, long long now_ms = 0);
  // How many fdinfo files the scans read so far (tests, bench).
  std::uint64_t files_read() const;

 private:
  enum class FdKind : std::uint8_t { Amdgpu, NotAmdgpu };
  struct FdEntry {
    FdKind kind = FdKind::NotAmdgpu;
    std::chrono::steady_clock::time_point checked_at;
    std::uint64_t generation = 0;
  };
  std::shared_ptr<const DrmScan> rescan(long long now_ms);

  std::string proc_dir_;
  mutable std::mutex mu_;
  std::shared_ptr<const DrmScan> last_;
  std::chrono::steady_clock::time_point last_at_;
  long long last_clock_key_ = 0;
  std::unordered_map<std::uint64_t, FdEntry> fds_;  // key: pid << 32 | fd
  std::uint64_t generation_ = 0;
  std::uint64_t files_read_ = 0;
};

// One card's processes from the clients of a scan; keeps the previous engine times per pid for
// the utilization (one instance per card; thread-safe).
class CardProcessReader {
 public:
  // With UTILIZATION_SINCE_US, each process's sm_ratio is its clients' engine time (gfx +
  // compute) since the previous read over the time between the two scans (DrmScan::at_ms), and
  // *UTILIZATION_SINCE_US becomes the scan's time.
  void read(const AmdCard& card, const DrmScan& scan, unsigned long long* utilization_since_us, const std::string& root,
            core::DeviceSnapshot& device);

 private:
  struct Busy {
    std::uint64_t ns = 0;
    long long at_ms = 0;
  };
  std::mutex mu_;
  std::map<std::uint32_t, Busy> previous_;
};

// The processes of CARD in SCAN (merged by pid, clients counted once per drm-client-id), with
// no names and no utilization: the pure part of CardProcessReader::read.
std::vector<core::ProcessSample> processes_of(const AmdCard& card, const DrmScan& scan,
                                              std::map<std::uint32_t, std::uint64_t>* busy_ns = nullptr);

}  // namespace gpuwatch::amd
