#include "core/safe_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gpuwatch::core {
namespace {

std::string folder_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Error write_error(const std::string& path, int error) {
  return make_error("cannot write " + path + ": " + std::strerror(error), 1);
}

}  // namespace

Result<void> write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  if (path.empty() || path.back() == '/') return make_error("cannot write '" + path + "': not a file name", 1);
  struct stat target {};
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists && S_ISDIR(target.st_mode)) return make_error("cannot write " + path + ": it is a directory", 1);
  // A device, FIFO or socket (/dev/stdout, /dev/null) is never replaced by a file.
  if (exists && !S_ISREG(target.st_mode)) return make_error("cannot write " + path + ": not a regular file", 1);
  // ".NAME.XXXXXX" next to the target: the rename stays within one file system.
  std::string pattern = folder_of(path) + "/." + base_of(path) + ".XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);  // O_CREAT | O_EXCL, mode 0600
  if (fd < 0) return write_error(path, errno);
  const std::string temporary(name.data());
  auto fail = [&](int error) {
    ::close(fd);
    ::unlink(temporary.c_str());
    return write_error(path, error);
  };
  // A file that is replaced keeps its permissions; a new one gets MODE less the umask.
  mode_t final_mode = target.st_mode & 07777;
  if (!exists || !S_ISREG(target.st_mode)) {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    final_mode = mode & ~mask;
  }
  if (::fchmod(fd, final_mode) != 0) return fail(errno);
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return fail(errno);
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return write_error(path, error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temporary.c_str());
    return write_error(path, error);
  }
  return {};
}

Result<int> open_for_append(const std::string& path, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == ELOOP) return make_error("cannot write " + path + ": it is a symbolic link (not followed)", 1);
    return write_error(path, errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("cannot write " + path + ": not a regular file", 1);
  }
  return fd;
}

}  // namespace gpuwatch::core
