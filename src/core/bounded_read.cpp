#include "core/bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpuwatch::core {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// Opens PATH without blocking (a FIFO) and checks it is a regular file of at most MAX_BYTES:
// the open descriptor, or the error. NAMED: what the messages call it.
Result<int> open_regular_file(const std::string& path, const std::string& named, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error("cannot read " + named + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    return make_error("cannot read " + named + ": " + std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(named + " is " + kind_of(st.st_mode) + ": give a regular file");
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return make_error(named + " is " + std::to_string(st.st_size) + " bytes: the limit is " + mib(max_bytes));
  }
  return fd;
}

}  // namespace

Result<void> check_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  auto fd = open_regular_file(path, what + " '" + path + "'", max_bytes);
  if (!fd) return fd.error();
  ::close(*fd);
  return {};
}

Result<std::string> read_regular_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  const std::string named = what + " '" + path + "'";
  auto opened = open_regular_file(path, named, max_bytes);
  if (!opened) return opened.error();
  const int fd = *opened;
  struct stat st {};
  ::fstat(fd, &st);
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return make_error("cannot read " + named + ": " + std::strerror(error));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      return make_error(named + " grew past the limit of " + mib(max_bytes) + " while being read");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace gpuwatch::core
