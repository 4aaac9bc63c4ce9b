#include "cli/service_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace gpuwatch::cli {

ServiceNotifier::ServiceNotifier(const char* socket_path) : path_(socket_path != nullptr ? socket_path : "") {
  sockaddr_un probe{};
  if (path_.size() >= sizeof probe.sun_path) path_.clear();  // cannot be addressed: treat as absent
}

bool ServiceNotifier::notify(std::string_view state) const {
  if (!enabled()) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path_.data(), path_.size());
  if (address.sun_path[0] == '@') address.sun_path[0] = '\0';  // abstract namespace
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path_.size());
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&address),
                          length);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

}  // namespace gpuwatch::cli
