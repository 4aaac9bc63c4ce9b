#include "intel/sysfs_file.hpp"

#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuwatch::intel {
namespace {

constexpr std::size_t kSysfsBufferBytes = 4096;

// Reads PATH into BUF; the bytes read, or -errno.
long read_into(const std::string& path, char* buf, std::size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  std::size_t used = 0;
  while (used < size) {
    const ssize_t n = ::read(fd, buf + used, size - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return -error;
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return static_cast<long>(used);
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

template <typename T>
FileValue<T> parse_number(const std::string& path) {
  char buf[64];
  const long n = read_into(path, buf, sizeof buf);
  if (n < 0) return {std::nullopt, static_cast<int>(-n)};
  std::string_view text = trimmed(std::string_view(buf, static_cast<std::size_t>(n)));
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end == text.data()) return {std::nullopt, EINVAL};
  return {value, 0};
}

}  // namespace

FileValue<std::string> read_text_file(const std::string& path) {
  char buf[kSysfsBufferBytes];
  const long n = read_into(path, buf, sizeof buf);
  if (n < 0) return {std::nullopt, static_cast<int>(-n)};
  std::string_view text(buf, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.remove_suffix(1);
  return {std::string(text), 0};
}

FileValue<std::uint64_t> read_number_file(const std::string& path) { return parse_number<std::uint64_t>(path); }

FileValue<std::int64_t> read_signed_file(const std::string& path) { return parse_number<std::int64_t>(path); }

std::optional<std::string_view> uevent_value(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
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

}  // namespace gpuwatch::intel
