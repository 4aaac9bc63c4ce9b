#include "intel/drm_clients.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace gpuwatch::intel {
namespace {

constexpr unsigned kDrmMajor = 226;  // the DRM character devices (card*, renderD*)

std::string_view trim_value(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
  return v;
}

// "123", "123 ns", "456 KiB" -> the number times its unit (bytes for memory).
std::optional<std::uint64_t> number_of(std::string_view v) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end == v.data()) return std::nullopt;
  const std::string_view unit = trim_value(std::string_view(end, static_cast<std::size_t>(v.data() + v.size() - end)));
  if (unit == "KiB") return n << 10;
  if (unit == "MiB") return n << 20;
  if (unit == "GiB") return n << 30;
  return n;
}

std::optional<EngineClass> engine_class_of(std::string_view name, KernelDriver driver) {
  if (driver == KernelDriver::I915) {
    if (name == "render") return EngineClass::Render;
    if (name == "compute") return EngineClass::Compute;
    if (name == "copy") return EngineClass::Copy;
    if (name == "video" || name == "video-enhance") return EngineClass::Video;
  } else {
    if (name == "rcs") return EngineClass::Render;
    if (name == "ccs") return EngineClass::Compute;
    if (name == "bcs") return EngineClass::Copy;
    if (name == "vcs" || name == "vecs") return EngineClass::Video;
  }
  return std::nullopt;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Reads FD's fdinfo at PATH into BUF (fdinfo of a DRM file is well under 4 KiB).
std::string_view read_fdinfo(const std::string& path, char* buf, std::size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::size_t used = 0;
  while (used < size) {
    const ssize_t n = ::read(fd, buf + used, size - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return std::string_view(buf, used);
}

// Whether descriptor NAME of the process is possibly a DRM device: its /proc/<pid>/fd link
// points to a DRM character device, or there is no such link (the simulator writes fdinfo only).
bool maybe_drm(const std::string& pid_dir, const char* name) {
  struct stat st {};
  if (::stat((pid_dir + "/fd/" + name).c_str(), &st) != 0) return errno == ENOENT;
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == kDrmMajor;
}

std::optional<std::uint32_t> pid_of(const char* name) {
  std::uint32_t pid = 0;
  const char* end = name;
  while (*end != '\0') ++end;
  const auto [p, ec] = std::from_chars(name, end, pid);
  if (ec != std::errc() || p != end || pid == 0) return std::nullopt;
  return pid;
}

void scan_process(const std::string& pid_dir, std::uint32_t pid, DrmScan& scan) {
  DIR* fds = ::opendir((pid_dir + "/fdinfo").c_str());
  if (fds == nullptr) {
    if (errno == EACCES || errno == EPERM) {
      scan.complete = false;
      scan.error = errno;
    }
    return;  // ENOENT: the process ended
  }
  char buf[4096];
  std::string path;
  while (const dirent* entry = ::readdir(fds)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || !maybe_drm(pid_dir, entry->d_name)) continue;
    path = pid_dir + "/fdinfo/" + entry->d_name;
    auto client = parse_fdinfo(read_fdinfo(path, buf, sizeof buf), pid);
    if (!client) continue;
    const bool seen = std::any_of(scan.clients.begin(), scan.clients.end(), [&](const DrmClient& c) {
      return c.pid == pid && c.client_id == client->client_id && c.pdev == client->pdev;
    });
    if (!seen) scan.clients.push_back(std::move(*client));
  }
  ::closedir(fds);
}

}  // namespace

std::optional<DrmClient> parse_fdinfo(std::string_view text, std::uint32_t pid) {
  DrmClient client;
  client.pid = pid;
  bool is_intel = false, has_id = false;
  // drm-driver comes first in every driver's output; keys may come in any order after it.
  std::vector<std::pair<std::string_view, std::string_view>> keys;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = trim_value(line.substr(colon + 1));
    if (key == "drm-driver") {
      if (value == "i915" || value == "xe") {
        is_intel = true;
        client.driver = value == "xe" ? KernelDriver::Xe : KernelDriver::I915;
      }
    } else if (starts_with(key, "drm-")) {
      keys.emplace_back(key, value);
    }
  }
  if (!is_intel) return std::nullopt;
  const std::string_view memory_key = client.driver == KernelDriver::Xe ? "drm-total-vram0" : "drm-total-local0";
  for (const auto& [key, value] : keys) {
    if (key == "drm-pdev") {
      client.pdev = std::string(value);
    } else if (key == "drm-client-id") {
      if (auto id = number_of(value)) {
        client.client_id = *id;
        has_id = true;
      }
    } else if (key == memory_key) {
      client.memory_bytes = number_of(value);
    } else if (client.driver == KernelDriver::I915 && starts_with(key, "drm-engine-")) {
      if (auto c = engine_class_of(key.substr(11), client.driver); c && number_of(value)) {
        auto& e = client.engines[static_cast<std::size_t>(*c)];
        e.busy += *number_of(value);
        e.present = true;
      }
    } else if (client.driver == KernelDriver::Xe && starts_with(key, "drm-total-cycles-")) {
      if (auto c = engine_class_of(key.substr(17), client.driver); c && number_of(value)) {
        auto& e = client.engines[static_cast<std::size_t>(*c)];
        e.total = std::max(e.total, *number_of(value));  // one GPU timestamp; vcs and vecs share it
        e.present = true;
      }
    } else if (client.driver == KernelDriver::Xe && starts_with(key, "drm-cycles-")) {
      if (auto c = engine_class_of(key.substr(11), client.driver); c && number_of(value)) {
        auto& e = client.engines[static_cast<std::size_t>(*c)];
        e.busy += *number_of(value);
        e.present = true;
      }
    }
  }
  if (!has_id) return std::nullopt;  // every DRM client has one; without it there is no dedup
  return client;
}

DrmScan scan_drm_clients(const std::string& proc_dir) {
  DrmScan scan;
  DIR* proc = ::opendir(proc_dir.c_str());
  if (proc == nullptr) {
    scan.complete = false;
    scan.error = errno;
    return scan;
  }
  while (const dirent* entry = ::readdir(proc)) {
    if (auto pid = pid_of(entry->d_name)) scan_process(proc_dir + "/" + entry->d_name, *pid, scan);
  }
  ::closedir(proc);
  return scan;
}

}  // namespace gpuwatch::intel
