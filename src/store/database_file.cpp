#include "store/database_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <cstdio>

namespace gpuwatch::store {
namespace {

std::string folder_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

core::Result<void> check_database_path(const std::string& path, bool may_be_missing) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    struct stat link {};
    if (errno == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      // A dangling symlink (issue 31): SQLite would create its target, wherever it points.
      return core::make_error(path + " is a symlink to a missing file: not creating its target; give the path of a "
                                     "regular file (or remove the link)",
                              1);
    }
    if (may_be_missing && errno == ENOENT) return {};
    return core::make_error("cannot open history database " + path + ": " + std::strerror(errno), 1);
  }
  if (S_ISDIR(st.st_mode)) {
    return core::make_error(path + " is a directory, not a history database: give a file path (e.g. " + path +
                                "/history.db)",
                            1);
  }
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISFIFO(st.st_mode)                     ? "a FIFO"
                       : S_ISSOCK(st.st_mode)                     ? "a socket"
                                                                  : "not a regular file";
    return core::make_error(path + " is " + what + ", not a history database: give the path of a regular file", 1);
  }
  return {};
}

bool has_sqlite_header(const std::string& path) {
  static constexpr char kHeader[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[16] = {};
  const bool ok = ::pread(fd, buffer, sizeof buffer, 0) == static_cast<ssize_t>(sizeof buffer) &&
                  std::memcmp(buffer, kHeader, sizeof kHeader) == 0;
  ::close(fd);
  return ok;
}

bool on_read_only_media(const std::string& path) {
  return ::access(path.c_str(), W_OK) != 0 || ::access(folder_of(path).c_str(), W_OK) != 0;
}

std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

std::vector<std::string> absent_side_files(const std::string& path) {
  std::vector<std::string> absent;
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    if (!exists(path + suffix)) absent.push_back(path + suffix);
  }
  return absent;
}

void remove_side_files(const std::vector<std::string>& files) {
  for (const auto& file : files) ::unlink(file.c_str());
}

}  // namespace gpuwatch::store
