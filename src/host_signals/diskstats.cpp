#include "host_signals/diskstats.hpp"

#include <algorithm>
#include <cctype>

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {
namespace {

bool starts_with_any(const std::string& name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.rfind(p, 0) == 0; });
}

bool looks_like_partition(const std::string& name) {
  if (name.empty() || !std::isdigit(static_cast<unsigned char>(name.back()))) return false;
  if (starts_with_any(name, {"sd", "vd", "hd", "xvd"})) return true;  // sda1 (sda is the disk)
  // nvme0n1p1, mmcblk0p1: a 'p' between digits
  std::size_t i = name.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) --i;
  return i >= 2 && name[i - 1] == 'p' && std::isdigit(static_cast<unsigned char>(name[i - 2]));
}

}  // namespace

std::vector<DiskCounters> parse_diskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  for (std::string_view line : lines_of(text)) {
    const auto w = words_of(line);
    if (w.size() == 7) {  // old partition line: reads, sectors read, writes, sectors written
      auto read = unsigned_of(w[4]), written = unsigned_of(w[6]);
      if (read && written) out.push_back({std::string(w[2]), *read, *written, std::nullopt});
    } else if (w.size() >= 14) {
      auto read = unsigned_of(w[5]), written = unsigned_of(w[9]);
      if (read && written) out.push_back({std::string(w[2]), *read, *written, unsigned_of(w[12])});
    }
  }
  return out;
}

bool counted_disk(const std::string& name, const std::optional<std::vector<std::string>>& whole_disks) {
  if (starts_with_any(name, {"loop", "ram", "zram", "dm-", "md"})) return false;
  if (whole_disks) return std::find(whole_disks->begin(), whole_disks->end(), name) != whole_disks->end();
  return !looks_like_partition(name);
}

}  // namespace gpuwatch::host_signals
