#include "jobs/process_tree.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace gpuwatch::jobs {

bool ProcessTree::contains(std::uint32_t pid) {
  std::set<std::uint32_t> path;
  std::uint32_t at = pid;
  for (int step = 0; step < 256 && at > 1; ++step) {
    if (excluded_.count(at) != 0) return false;
    if (roots_.count(at) != 0 || members_.count(at) != 0) {
      for (auto p : path) {
        if (roots_.count(p) == 0) members_.insert(p);
      }
      return true;
    }
    path.insert(at);
    auto parent = parent_of_(at);
    if (!parent || *parent == at) return false;
    at = *parent;
  }
  return false;
}

std::optional<std::uint32_t> parent_pid_from_stat(const std::string& stat_text) {
  auto close = stat_text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat_text.substr(close + 1));
  std::string state;
  long long ppid = -1;
  if (!(rest >> state >> ppid) || ppid < 0 || ppid > 4294967295LL) return std::nullopt;
  return static_cast<std::uint32_t>(ppid);
}

std::optional<std::uint32_t> read_parent_pid(std::uint32_t pid, const std::string& proc_root) {
  std::string path = proc_root + "/" + std::to_string(pid) + "/stat";
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return std::nullopt;
  char buffer[1024];
  std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
  std::fclose(f);
  return parent_pid_from_stat(std::string(buffer, n));
}

std::set<std::uint32_t> read_children(std::uint32_t parent, const std::string& proc_root) {
  std::set<std::uint32_t> out;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<std::uint32_t>(std::stoul(name));
    if (read_parent_pid(pid, proc_root) == parent) out.insert(pid);
  }
  return out;
}

}  // namespace gpuwatch::jobs
