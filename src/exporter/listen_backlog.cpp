#include "exporter/listen_backlog.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <string>

namespace gpuwatch::exporter {
namespace {

// The port of a listening TCP socket FD, or -1 when FD is something else.
int listening_port(int fd) {
  int accepting = 0;
  socklen_t length = sizeof accepting;
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) != 0 || !accepting) return -1;
  int type = 0;
  length = sizeof type;
  if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return -1;
  sockaddr_storage address{};
  length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return -1;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  return -1;
}

}  // namespace

int widen_listen_backlog(int port, int backlog) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return 0;
  int changed = 0;
  while (const dirent* entry = ::readdir(fds)) {
    char* end = nullptr;
    long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == ::dirfd(fds)) continue;
    if (listening_port(static_cast<int>(fd)) == port && ::listen(static_cast<int>(fd), backlog) == 0) ++changed;
  }
  ::closedir(fds);
  return changed;
}

}  // namespace gpuwatch::exporter
