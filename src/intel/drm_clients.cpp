#include "intel/drm_clients.hpp"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "drm/fdinfo.hpp"
#include "drm/small_file.hpp"

namespace gpuwatch::intel {
namespace {

constexpr unsigned kDrmMajor = 226;  // the DRM character devices (card*, renderD*)

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

// Whether descriptor NAME of the process is possibly a DRM device: its /proc/<pid>/fd link
// points to a DRM character device, or there is no such link (the simulator writes fdinfo only).
bool maybe_drm(const std::string& pid_dir, const char* name) {
  struct stat st {};
  if (::stat((pid_dir + "/fd/" + name).c_str(), &st) != 0) return errno == ENOENT;
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == kDrmMajor;
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
  drm::FileBuffer<4096> buf;  // fdinfo of a DRM file is well under 4 KiB
  std::string path;
  while (const dirent* entry = ::readdir(fds)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9' || !maybe_drm(pid_dir, entry->d_name)) continue;
    path = pid_dir + "/fdinfo/" + entry->d_name;
    drm::read_file(path, buf);
    auto client = parse_fdinfo(buf.text(), pid);  // a failed read leaves what was read (nothing when unopened)
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
  // drm-driver comes first in every driver's output, but keys may come in any order: the first
  // pass finds the driver, the second reads the keys as that driver means them.
  const drm::FdinfoIdentity id = drm::parse_fdinfo_keys(text, [](std::string_view, std::string_view) {});
  if (id.driver != "i915" && id.driver != "xe") return std::nullopt;
  if (!id.client_id) return std::nullopt;  // every DRM client has one; without it there is no dedup
  DrmClient client;
  client.pid = pid;
  client.driver = id.driver == "xe" ? KernelDriver::Xe : KernelDriver::I915;
  client.pdev = std::string(id.pdev);
  client.client_id = *id.client_id;
  const std::string_view memory_key = client.driver == KernelDriver::Xe ? "drm-total-vram0" : "drm-total-local0";
  const auto add_busy = [&](std::string_view engine, std::string_view value) {
    const auto c = engine_class_of(engine, client.driver);
    const auto n = drm::fdinfo_number(value);
    if (!c || !n) return;
    auto& e = client.engines[static_cast<std::size_t>(*c)];
    e.busy += *n;
    e.present = true;
  };
  drm::parse_fdinfo_keys(text, [&](std::string_view key, std::string_view value) {
    if (key == memory_key) {
      client.memory_bytes = drm::fdinfo_number(value);
    } else if (client.driver == KernelDriver::I915 && starts_with(key, "drm-engine-")) {
      add_busy(key.substr(11), value);
    } else if (client.driver == KernelDriver::Xe && starts_with(key, "drm-total-cycles-")) {
      const auto c = engine_class_of(key.substr(17), client.driver);
      const auto n = drm::fdinfo_number(value);
      if (!c || !n) return;
      auto& e = client.engines[static_cast<std::size_t>(*c)];
      e.total = std::max(e.total, *n);  // one GPU timestamp; vcs and vecs share it
      e.present = true;
    } else if (client.driver == KernelDriver::Xe && starts_with(key, "drm-cycles-")) {
      add_busy(key.substr(11), value);
    }
  });
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
    if (auto pid = drm::numeric_name(entry->d_name); pid && *pid != 0) scan_process(proc_dir + "/" + entry->d_name, *pid, scan);
  }
  ::closedir(proc);
  return scan;
}

}  // namespace gpuwatch::intel
