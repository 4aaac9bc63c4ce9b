#include "service/notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpuwatch::service {

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

namespace {

// A whole decimal number, no sign, no spaces (what systemd writes).
std::optional<std::uint64_t> parse_decimal(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::string_view view(text);
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || end != view.data() + view.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::chrono::microseconds> watchdog_ping_interval(const char* usec, const char* pid, pid_t self) {
  auto timeout = parse_decimal(usec);
  if (!timeout || *timeout == 0) return std::nullopt;
  if (pid != nullptr && *pid != '\0') {  // set: the pings are for that process only
    auto target = parse_decimal(pid);
    if (!target || *target != static_cast<std::uint64_t>(self)) return std::nullopt;
  }
  // Half the timeout, as sd_watchdog_enabled(3) advises; at least 1 us.
  return std::chrono::microseconds(static_cast<std::chrono::microseconds::rep>(*timeout / 2 > 0 ? *timeout / 2 : 1));
}

bool WatchdogPinger::tick(bool healthy, Clock::time_point now) {
  if (!enabled() || !healthy) return false;
  if (last_ && now - *last_ < *interval_) return false;
  last_ = now;
  return notifier_.notify("WATCHDOG=1");
}

}  // namespace gpuwatch::service
