#pragma once
// /proc/diskstats (Documentation/admin-guide/iostats.rst): per block device, sectors read and
// written since boot (always 512-byte sectors, whatever the device's block size) and the
// milliseconds the device had I/O in flight ("io_ticks", field 10: busy time). Kernels before
// 2.6.25 gave partitions 4 fields only: then io_ticks is absent.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::host_signals {

inline constexpr std::uint64_t kDiskSectorBytes = 512;

struct DiskCounters {
  std::string name;
  std::uint64_t sectors_read = 0, sectors_written = 0;
  std::optional<std::uint64_t> io_ticks_ms;
};

std::vector<DiskCounters> parse_diskstats(std::string_view text);

// Whether a device counts as one of the machine's disks: a whole disk, not a partition (whose
// I/O its disk counts already), a loop, RAM or zram device, nor a device-mapper or md device
// stacked on disks counted anyway. WHOLE_DISKS: the names in /sys/block (partitions are not
// there); absent (not listable): told from the name (sda1, vda2, nvme0n1p1, mmcblk0p1).
bool counted_disk(const std::string& name, const std::optional<std::vector<std::string>>& whole_disks);

}  // namespace gpuwatch::host_signals
