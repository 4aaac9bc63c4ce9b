#include "attribution/container_names.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace gpuwatch::attribution {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, remaining_ms(deadline));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

bool is_container_id(std::string_view id) {
  return !id.empty() && id.size() <= 128 &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; });
}

}  // namespace

core::Result<std::string> name_of_inspect_json(std::string_view body) {
  auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return core::make_error("container inspect reply is not a JSON object");
  auto name = json.find("Name");
  if (name == json.end() || !name->is_string() || name->get<std::string>().empty()) {
    return core::make_error("container inspect reply has no Name");
  }
  std::string text = name->get<std::string>();
  if (text.front() == '/') text.erase(0, 1);
  return text;
}

core::Result<std::string> container_name(const std::string& socket_path, const std::string& container_id,
                                         std::chrono::milliseconds timeout) {
  if (!is_container_id(container_id)) return core::make_error("not a container id: " + container_id);
  const auto deadline = Clock::now() + timeout;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(address.sun_path)) return core::make_error("socket path too long: " + socket_path);
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return core::make_error(std::string("socket: ") + std::strerror(errno), errno);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 && errno != EINPROGRESS &&
      errno != EAGAIN) {
    return core::make_error("cannot connect to " + socket_path + ": " + std::strerror(errno), errno);
  }
  const std::string request = "GET /containers/" + container_id + "/json HTTP/1.0\r\nHost: docker\r\n\r\n";
  std::size_t sent = 0;
  while (sent < request.size()) {
    if (!wait_for(fd.get(), POLLOUT, deadline)) return core::make_error("timed out writing to " + socket_path);
    ssize_t n = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return core::make_error("cannot write to " + socket_path + ": " + std::strerror(errno), errno);
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buffer[4096];
  constexpr std::size_t kMaxReply = 4 * 1024 * 1024;
  for (;;) {
    if (!wait_for(fd.get(), POLLIN, deadline)) return core::make_error("no answer from " + socket_path + " in time");
    ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return core::make_error("cannot read from " + socket_path + ": " + std::strerror(errno), errno);
    if (n == 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
    if (reply.size() > kMaxReply) return core::make_error("reply from " + socket_path + " too large");
  }
  // HTTP/1.0 (no chunking): status line, headers, blank line, body.
  auto line_end = reply.find("\r\n");
  auto status_at = reply.find(' ');
  if (line_end == std::string::npos || status_at == std::string::npos || status_at > line_end) {
    return core::make_error("not an HTTP reply from " + socket_path);
  }
  const std::string status = reply.substr(status_at + 1, 3);
  if (status != "200") return core::make_error("container " + container_id + ": HTTP " + status + " from " + socket_path);
  auto body_at = reply.find("\r\n\r\n");
  if (body_at == std::string::npos) return core::make_error("HTTP reply without a body from " + socket_path);
  return name_of_inspect_json(std::string_view(reply).substr(body_at + 4));
}

}  // namespace gpuwatch::attribution
