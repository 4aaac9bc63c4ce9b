#include "drm/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace gpuwatch::drm {
namespace {
std::atomic<ReadObserver> small_file_read_observer{nullptr};
}  // namespace

void set_read_observer(ReadObserver observer) {
  small_file_read_observer.store(observer, std::memory_order_relaxed);
}

int read_file_into(const char* path, char* buf, std::size_t capacity, std::size_t* size) {
  *size = 0;
  if (const ReadObserver observer = small_file_read_observer.load(std::memory_order_relaxed)) observer(path);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = 0;
  while (*size < capacity) {
    const ssize_t n = ::read(fd, buf + *size, capacity - *size);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) break;
    *size += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return err;
}

std::optional<std::string> read_text_file(const std::string& path, int* error) {
  char buf[4096];
  std::size_t size = 0;
  const int err = read_file_into(path.c_str(), buf, sizeof buf, &size);
  if (error != nullptr) *error = err;
  if (err != 0) return std::nullopt;
  return std::string(buf, size);
}

std::string_view trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\0'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<std::string_view> uevent_value(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == '=') {
      return trimmed(line.substr(key.size() + 1));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return std::nullopt;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace gpuwatch::drm
