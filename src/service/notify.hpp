#pragma once
// The systemd readiness protocol (sd_notify) without libsystemd: when the service
// manager sets NOTIFY_SOCKET, state lines such as "READY=1" or "STOPPING=1" are sent as
// one datagram to that AF_UNIX socket ('@' = Linux abstract namespace). Without the
// variable every call does nothing, so `serve` behaves the same outside systemd.
//
// The watchdog (WatchdogSec= in the unit): systemd sets WATCHDOG_USEC (the timeout) and
// WATCHDOG_PID (the pid it expects pings from); the service sends "WATCHDOG=1" more often
// than the timeout, and systemd kills and restarts it when the pings stop.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::service {

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

// How often to send WATCHDOG=1, from WATCHDOG_USEC and WATCHDOG_PID (the values of the
// variables; nullptr = unset) as sd_watchdog_enabled() reads them: half the timeout, or
// nothing when the watchdog is off for this process (USEC unset, not a positive decimal
// number, or PID set to another process's pid or to something that is not a pid).
std::optional<std::chrono::microseconds> watchdog_ping_interval(const char* usec, const char* pid, pid_t self);

// Sends WATCHDOG=1 at most once per interval, and only while the caller says the
// service is healthy: when it is not, the pings stop and systemd restarts the service
// once WatchdogSec has passed.
class WatchdogPinger {
 public:
  using Clock = std::chrono::steady_clock;
  WatchdogPinger(const ServiceNotifier& notifier, std::optional<std::chrono::microseconds> interval)
      : notifier_(notifier), interval_(interval) {}
  bool enabled() const { return interval_.has_value() && notifier_.enabled(); }
  std::optional<std::chrono::microseconds> interval() const { return interval_; }
  // Sends WATCHDOG=1 when enabled, HEALTHY and the previous ping is an interval old (or
  // there was none); true when it sent one.
  bool tick(bool healthy, Clock::time_point now);

 private:
  const ServiceNotifier& notifier_;
  std::optional<std::chrono::microseconds> interval_;
  std::optional<Clock::time_point> last_;
};

}  // namespace gpuwatch::service
