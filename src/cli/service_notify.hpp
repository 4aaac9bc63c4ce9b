#pragma once
// The systemd readiness protocol (sd_notify) without libsystemd: when the service
// manager sets NOTIFY_SOCKET, state lines such as "READY=1" or "STOPPING=1" are sent as
// one datagram to that AF_UNIX socket ('@' = Linux abstract namespace). Without the
// variable every call does nothing, so `serve` behaves the same outside systemd.
#include <string>
#include <string_view>

namespace gpuwatch::cli {

class ServiceNotifier {
 public:
  // SOCKET_PATH: the value of NOTIFY_SOCKET (nullptr or "" = not under a notify service).
  explicit ServiceNotifier(const char* socket_path);
  bool enabled() const { return !path_.empty(); }
  // Sends STATE (e.g. "READY=1\nSTATUS=serving 8 GPUs"); false if it could not be sent.
  bool notify(std::string_view state) const;

 private:
  std::string path_;
};

}  // namespace gpuwatch::cli
