#include "amd/drm_clients.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include "amd/amd_errors.hpp"
#include "amd/sysfs_file.hpp"
#include "amd/sysfs_parse.hpp"
#include "drm/fdinfo.hpp"

namespace gpuwatch::amd {
namespace {

// Whether /proc/<pid>/fd/<fd> links to a DRM device; nullopt when there is no link to read
// (the simulator's tree, or the fd closed meanwhile).
std::optional<bool> links_to_drm(const std::string& link_path) {
  char target[256];
  const ssize_t n = ::readlink(link_path.c_str(), target, sizeof target - 1);
  if (n < 0) return std::nullopt;
  const std::string_view t(target, static_cast<std::size_t>(n));
  return t.substr(0, 9) == "/dev/dri/";
}

// A process's name: ROOT/proc/<pid>/comm, else the host's (the simulator's tree has none; its
// processes are real ones).
std::string process_name(const std::string& root, std::uint32_t pid) {
  const std::string tail = "/proc/" + std::to_string(pid) + "/comm";
  FileBuffer<64> buf;
  read_file(under_root(root, tail), buf);
  if (!buf.ok() && !(root.empty() || root == "/")) read_file(tail, buf);
  return buf.ok() ? std::string(trimmed(buf.text())) : std::string();
}

}  // namespace

DrmClientScanner::DrmClientScanner(std::string root) : proc_dir_(under_root(root, "/proc")) {}

std::uint64_t DrmClientScanner::files_read() const {
  std::lock_guard lock(mu_);
  return files_read_;
}

std::shared_ptr<const DrmScan> DrmClientScanner::scan(long long clock_key, long long now_ms) {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (last_ && clock_key == last_clock_key_ && now - last_at_ < kScanReuse) return last_;
  last_ = rescan(now_ms);
  last_at_ = now;
  last_clock_key_ = clock_key;
  return last_;
}

std::shared_ptr<const DrmScan> DrmClientScanner::rescan(long long now_ms) {
  auto out = std::make_shared<DrmScan>();
  out->at_ms = now_ms;
  const auto now = std::chrono::steady_clock::now();
  const std::uint64_t generation = ++generation_;
  DIR* proc = ::opendir(proc_dir_.c_str());
  if (proc == nullptr) {
    out->error = error_from_errno(errno);
    return out;
  }
  FileBuffer<4096> buf;
  std::string path;
  while (const dirent* p = ::readdir(proc)) {
    const auto pid = drm::numeric_name(p->d_name);
    if (!pid) continue;
    const std::string pid_dir = proc_dir_ + "/" + p->d_name;
    DIR* fdinfo = ::opendir((pid_dir + "/fdinfo").c_str());
    if (fdinfo == nullptr) continue;  // gone, or another user's
    while (const dirent* f = ::readdir(fdinfo)) {
      const auto fd = drm::numeric_name(f->d_name);
      if (!fd) continue;
      const std::uint64_t key = (std::uint64_t{*pid} << 32) | *fd;
      auto [it, inserted] = fds_.try_emplace(key);
      FdEntry& entry = it->second;
      entry.generation = generation;
      if (!inserted && entry.kind == FdKind::NotAmdgpu && now - entry.checked_at < kRecheckAfter) continue;
      if (inserted || entry.kind == FdKind::NotAmdgpu) {
        const auto drm = links_to_drm(pid_dir + "/fd/" + f->d_name);
        if (drm && !*drm) {
          entry.kind = FdKind::NotAmdgpu;
          entry.checked_at = now;
          continue;
        }
      }
      path = pid_dir + "/fdinfo/" + f->d_name;
      read_file(path, buf);
      ++files_read_;
      entry.checked_at = now;
      if (!buf.ok()) {
        entry.kind = FdKind::NotAmdgpu;
        continue;
      }
      const DrmFdinfo info = parse_drm_fdinfo(buf.text());
      if (info.driver != "amdgpu") {
        entry.kind = FdKind::NotAmdgpu;
        continue;
      }
      entry.kind = FdKind::Amdgpu;
      DrmClient c;
      c.pid = *pid;
      c.client_id = info.client_id.value_or(key);  // no id: the file is its own client
      c.pdev = std::string(info.pdev);
      c.gfx_ns = info.gfx_ns;
      c.compute_ns = info.compute_ns;
      c.vram_bytes = info.vram_bytes;
      out->clients.push_back(std::move(c));
    }
    ::closedir(fdinfo);
  }
  ::closedir(proc);
  std::erase_if(fds_, [&](const auto& kv) { return kv.second.generation != generation; });
  return out;
}

std::vector<core::ProcessSample> processes_of(const AmdCard& card, const DrmScan& scan,
                                              std::map<std::uint32_t, std::uint64_t>* busy_ns) {
  struct PerPid {
    std::optional<std::uint64_t> vram;
    std::uint64_t gfx_ns = 0, compute_ns = 0;
  };
  std::map<std::uint32_t, PerPid> by_pid;
  std::set<std::pair<std::uint32_t, std::uint64_t>> seen;  // (pid, client id): a client counts once
  for (const auto& c : scan.clients) {
    if (c.pdev != card.slot) continue;
    if (!seen.emplace(c.pid, c.client_id).second) continue;
    PerPid& p = by_pid[c.pid];
    if (c.vram_bytes) p.vram = p.vram.value_or(0) + *c.vram_bytes;
    p.gfx_ns += c.gfx_ns;
    p.compute_ns += c.compute_ns;
  }
  std::vector<core::ProcessSample> out;
  out.reserve(by_pid.size());
  for (const auto& [pid, p] : by_pid) {
    core::ProcessSample s;
    s.pid = pid;
    s.used_memory_bytes = p.vram;
    s.type = p.gfx_ns > 0 && p.compute_ns > 0 ? core::ProcessType::ComputeAndGraphics
             : p.gfx_ns > 0                   ? core::ProcessType::Graphics
                                              : core::ProcessType::Compute;
    if (busy_ns != nullptr) (*busy_ns)[pid] = p.gfx_ns + p.compute_ns;
    out.push_back(std::move(s));
  }
  return out;
}

void CardProcessReader::read(const AmdCard& card, const DrmScan& scan, unsigned long long* utilization_since_us,
                             const std::string& root, core::DeviceSnapshot& device) {
  const long long now_ms = scan.at_ms;
  device.processes.clear();
  if (!scan.error.ok()) {
    device.processes_status = status_of(scan.error);
    device.processes_error = scan.error;
    return;
  }
  std::map<std::uint32_t, std::uint64_t> busy;
  device.processes = processes_of(card, scan, &busy);
  for (auto& p : device.processes) p.name = process_name(root, p.pid);
  {
    std::lock_guard lock(mu_);
    if (utilization_since_us != nullptr) {
      for (auto& p : device.processes) {
        const auto prev = previous_.find(p.pid);
        if (prev == previous_.end() || now_ms <= prev->second.at_ms) continue;
        const std::uint64_t now_ns = busy[p.pid];
        const double elapsed_ns = static_cast<double>(now_ms - prev->second.at_ms) * 1e6;
        const double used_ns = now_ns >= prev->second.ns ? static_cast<double>(now_ns - prev->second.ns) : 0.0;
        p.sm_ratio = std::clamp(used_ns / elapsed_ns, 0.0, 1.0);
      }
      *utilization_since_us = static_cast<unsigned long long>(now_ms) * 1000ULL;
    }
    std::map<std::uint32_t, Busy> next;
    for (const auto& [pid, ns] : busy) {
      const auto prev = previous_.find(pid);
      // The same moment again (a reused scan): keep the older reading as the base.
      next[pid] = prev != previous_.end() && prev->second.at_ms == now_ms ? prev->second : Busy{ns, now_ms};
    }
    previous_ = std::move(next);
  }
  device.processes_status = core::FieldStatus::Ok;
  device.processes_error = {};
}

}  // namespace gpuwatch::amd
