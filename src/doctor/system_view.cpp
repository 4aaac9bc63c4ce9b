#include "doctor/system_view.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuwatch::doctor {

namespace fs = std::filesystem;

RootedSystemView::RootedSystemView(std::string root) : root_(root.empty() ? "/" : std::move(root)) {}

std::string RootedSystemView::under_root(const std::string& path) const {
  if (root_ == "/") return path;
  return (fs::path(root_) / fs::path(path).relative_path()).string();
}

// Reads with O_NONBLOCK: a FIFO never blocks the open, and /dev/kmsg (one record a read) ends
// with EAGAIN at the end of the log instead of waiting for the next line.
std::optional<std::string> RootedSystemView::read_file(const std::string& path, std::size_t max_bytes) const {
  int fd = ::open(under_root(path).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[8192];
  bool failed_first = false;
  while (text.size() < max_bytes) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue;  // kmsg: records overwritten meanwhile; go on
    if (n < 0 && errno != EAGAIN && text.empty()) failed_first = true;
    break;
  }
  ::close(fd);
  if (failed_first) return std::nullopt;
  if (text.size() > max_bytes) text.resize(max_bytes);
  return text;
}

bool RootedSystemView::exists(const std::string& path) const {
  std::error_code ec;
  return fs::exists(fs::symlink_status(under_root(path), ec));
}

std::optional<std::vector<std::string>> RootedSystemView::list(const std::string& path) const {
  std::error_code ec;
  fs::directory_iterator it(under_root(path), ec);
  if (ec) return std::nullopt;
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
    if (names.size() >= 100000) break;
  }
  return names;
}

// From the mode bits, not access(2): root passes access() on any file, yet a node of mode
// 0000 is a misconfiguration worth naming.
std::optional<bool> RootedSystemView::read_writable(const std::string& path) const {
  struct stat st {};
  if (::stat(under_root(path).c_str(), &st) != 0) return std::nullopt;
  const uid_t uid = ::geteuid();
  mode_t bits = st.st_mode & 07;
  if (st.st_uid == uid) {
    bits = (st.st_mode >> 6) & 07;
  } else {
    bool in_group = st.st_gid == ::getegid();
    gid_t groups[256];
    int n = ::getgroups(256, groups);
    for (int i = 0; i < n && !in_group; ++i) in_group = groups[i] == st.st_gid;
    if (in_group) bits = (st.st_mode >> 3) & 07;
  }
  return (bits & 06) == 06;
}

std::optional<std::string> RootedSystemView::env(const std::string& name) const {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Half a second at most (timeout(1)), the Xid lines only, the last 200.
std::optional<std::string> RootedSystemView::kernel_journal() const {
  if (root_ != "/") return std::nullopt;
  FILE* pipe = ::popen("command -v journalctl >/dev/null && timeout 0.5 journalctl -k -b -q --no-pager -o cat 2>/dev/null | grep -a 'NVRM: Xid' | tail -n 200",
                       "r");
  if (pipe == nullptr) return std::nullopt;
  std::string text;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0 && text.size() < (1u << 20)) text.append(buffer, n);
  int status = ::pclose(pipe);
  if (status != 0 && text.empty()) return std::nullopt;
  return text;
}

std::string host_root_from_environment() {
  const char* root = std::getenv("GPUWATCH_HOST_ROOT");
  return root != nullptr && *root != '\0' ? std::string(root) : std::string("/");
}

}  // namespace gpuwatch::doctor
