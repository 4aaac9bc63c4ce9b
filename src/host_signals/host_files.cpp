#include "host_signals/host_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace gpuwatch::host_signals {

RootedHostFiles::RootedHostFiles(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string RootedHostFiles::under_root(const std::string& path) const {
  return root_ == "/" || root_.empty() ? path : root_ + path;
}

// One open and a read or two: /proc files are generated on read, and their size says nothing.
std::optional<std::string> RootedHostFiles::read(const std::string& path, std::size_t max_bytes) const {
  const int fd = ::open(under_root(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[8192];
  bool failed = false;
  while (text.size() < max_bytes) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, max_bytes - text.size()));
    if (n < 0) failed = true;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (failed && text.empty()) return std::nullopt;
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
