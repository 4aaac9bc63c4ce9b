#include "host_signals/host_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace gpuwatch::host_signals {

RootedHostFiles::RootedHostFiles(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string RootedHostFiles::under_root(const std::string& path) const {
  return root_ == "/" || root_.empty() ? path : root_ + path;
}

RootedHostFiles::~RootedHostFiles() {
  for (const auto& [path, fd] : open_) ::close(fd);
}

bool RootedHostFiles::keeps_open(const std::string& path) const {
  if (root_ != "/") return false;
  // /proc/<pid>/... and /proc/self/...: a process's own files, bounded only by the processes seen.
  if (path.rfind("/proc/", 0) == 0 && path.size() > 6 && (std::isdigit(static_cast<unsigned char>(path[6])) != 0 ||
                                                          path.compare(6, 5, "self/") == 0 ||
                                                          path.compare(6, 12, "thread-self/") == 0))
    return false;
  return path.rfind("/proc/", 0) == 0 || path.rfind("/sys/", 0) == 0;
}

std::size_t RootedHostFiles::open_files() const {
  std::lock_guard lock(mutex_);
  return open_.size();
}

namespace {

// Reads FD from offset 0 (pread: the kept descriptor's position never matters) up to MAX_BYTES.
std::optional<std::string> read_from_start(int fd, std::size_t max_bytes) {
  std::string text;
  char buffer[8192];
  bool failed = false;
  while (text.size() < max_bytes) {
    const ssize_t n = ::pread(fd, buffer, std::min(sizeof buffer, max_bytes - text.size()), static_cast<off_t>(text.size()));
    if (n < 0) failed = true;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  if (failed && text.empty()) return std::nullopt;
  return text;
}

}  // namespace

// /proc files are generated on read, and their size says nothing: read until the end.
std::optional<std::string> RootedHostFiles::read(const std::string& path, std::size_t max_bytes) const {
  if (keeps_open(path)) {
    std::lock_guard lock(mutex_);
    if (auto kept = open_.find(path); kept != open_.end()) {
      if (auto text = read_from_start(kept->second, max_bytes)) return text;
      ::close(kept->second);  // gone (a port removed, a driver unloaded): open it again below
      open_.erase(kept);
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    auto text = read_from_start(fd, max_bytes);
    if (text) open_.emplace(path, fd);
    else ::close(fd);
    return text;
  }
  const int fd = ::open(under_root(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  auto text = read_from_start(fd, max_bytes);
  ::close(fd);
  return text;
}

std::optional<std::vector<std::string>> RootedHostFiles::list(const std::string& path) const {
  std::error_code ec;
  std::filesystem::directory_iterator it(under_root(path), ec);
  if (ec) return std::nullopt;
  std::vector<std::string> names;
  for (; it != std::filesystem::directory_iterator() && names.size() < 100000; it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string host_signals_root(const std::string& host_root) {
  if (host_root.empty() || host_root == "/") return "/";
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::path(host_root) / "proc/stat", ec) ? host_root : std::string("/");
}

}  // namespace gpuwatch::host_signals
