#include "capi/job_gpus.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace gpuwatch::capi {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::optional<unsigned> parse_index(const std::string& s) {
  unsigned value = 0;
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end || s.empty()) return std::nullopt;
  return value;
}

// The one GPU whose UUID starts with PREFIX (or owns the MIG device PREFIX names).
std::optional<unsigned> gpu_of_uuid(const std::string& prefix, const core::Snapshot& snapshot) {
  std::optional<unsigned> found;
  int matches = 0;
  for (const auto& device : snapshot.devices) {
    bool match = false;
    if (const auto uuid = device.get(core::FieldId::Uuid).as_string()) match = uuid->rfind(prefix, 0) == 0;
    for (const auto& mig : device.mig_devices) match = match || mig.uuid.rfind(prefix, 0) == 0;
    if (match) {
      found = device.index;
      ++matches;
    }
  }
  return matches == 1 ? found : std::nullopt;
}

}  // namespace

std::vector<unsigned> cuda_visible_gpus(const std::string& cuda_visible_devices, const core::Snapshot& snapshot) {
  std::vector<unsigned> out;
  std::stringstream list(cuda_visible_devices);
  std::string item;
  while (std::getline(list, item, ',')) {
    item = trim(item);
    std::optional<unsigned> gpu;
    if (const auto index = parse_index(item)) {
      for (const auto& device : snapshot.devices)
        if (device.index == *index) gpu = *index;
    } else if (item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0) {
      gpu = gpu_of_uuid(item, snapshot);
    }
    if (!gpu) break;  // CUDA ignores everything from the first invalid entry on
    bool seen = false;
    for (unsigned g : out) seen = seen || g == *gpu;
    if (!seen) out.push_back(*gpu);
  }
  return out;
}

std::vector<unsigned> job_gpus(const core::Snapshot& snapshot, const std::set<std::uint32_t>& tree_pids,
                               const std::optional<std::string>& cuda_visible_devices) {
  std::vector<unsigned> out;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (tree_pids.count(process.pid)) {
        out.push_back(device.index);
        break;
      }
    }
  }
  if (!out.empty()) return out;
  if (cuda_visible_devices) return cuda_visible_gpus(*cuda_visible_devices, snapshot);
  for (const auto& device : snapshot.devices) out.push_back(device.index);
  return out;
}

std::optional<std::uint32_t> parent_of_stat(const std::string& stat_line) {
  const auto close = stat_line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat_line.substr(close + 1));
  std::string state;
  std::uint32_t ppid = 0;
  if (!(rest >> state >> ppid)) return std::nullopt;
  return ppid;
}

std::set<std::uint32_t> process_tree(std::uint32_t root, const std::string& proc_root) {
  std::multimap<std::uint32_t, std::uint32_t> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, ec)) {
    const auto pid = parse_index(entry.path().filename().string());
    if (!pid) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;  // gone meanwhile
    if (const auto ppid = parent_of_stat(line)) children.emplace(*ppid, *pid);
  }
  std::set<std::uint32_t> tree = {root};
  std::vector<std::uint32_t> todo = {root};
  while (!todo.empty()) {
    const auto pid = todo.back();
    todo.pop_back();
    auto [first, last] = children.equal_range(pid);
    for (auto it = first; it != last; ++it)
      if (tree.insert(it->second).second) todo.push_back(it->second);
  }
  return tree;
}

}  // namespace gpuwatch::capi
