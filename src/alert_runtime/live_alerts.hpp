#pragma once
// Alerts in `serve` and `record`, set up in two steps:
//   prepare_alerts(): reads and checks the rules (--alert-rules, else the built-in set) and the
//     notification channels (--notify, --notify-config) before anything starts; its errors are
//     usage errors (exit 2) naming the file, line, key and problem.
//   LiveAlerts::start(): the engine with its state restored from the history database, and the
//     notification dispatcher (its queue in the same database, or in memory).
// tick() runs on the caller's evaluating thread once per sample tick; notifications leave on the
// dispatcher's threads, so no receiver ever slows the caller down.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "alert_runtime/alert_monitor.hpp"
#include "alerts/engine.hpp"
#include "alerts/rule.hpp"
#include "core/result.hpp"
#include "notify/channel.hpp"

namespace gpuwatch::notify {
class Dispatcher;
}

namespace gpuwatch::alert_runtime {

struct AlertFlags {
  std::string rules_file;                 // "": the built-in rules
  std::vector<std::string> notify_specs;  // --notify
  std::string notify_config;              // --notify-config
};

struct PreparedAlerts {
  alerts::RuleSet rules;
  std::vector<notify::Channel> channels;
};

core::Result<PreparedAlerts> prepare_alerts(const AlertFlags& flags);

struct LiveAlertsOptions {
  std::string db_path;     // the history database; "": alerts and the delivery queue in memory
  std::string host;        // the host label
  double time_scale = 1;   // the simulated scenario's time_scale (TimeMap)
  std::function<void(const std::string&)> log;  // one line (stderr)
  // After every evaluation: the alerts pending and firing, and the events (serve's HTTP board).
  std::function<void(std::vector<alerts::Alert>, const std::vector<alerts::AlertEvent>&)> publish;
};

class LiveAlerts {
 public:
  static core::Result<std::unique_ptr<LiveAlerts>> start(PreparedAlerts prepared, LiveAlertsOptions options);
  ~LiveAlerts();  // stop()
  LiveAlerts(const LiveAlerts&) = delete;
  LiveAlerts& operator=(const LiveAlerts&) = delete;

  void tick(alerts::TickInput tick);
  // Stops the dispatcher (bounded: it aborts sends in flight; what is unsent stays queued).
  void stop();
  // "24 rules (built-in), notifying webhook (http://127.0.0.1:9000/…); 1 firing alert restored"
  std::string summary() const;
  std::vector<alerts::Alert> active() const;

 private:
  LiveAlerts() = default;
  std::string rules_source_;
  std::size_t rule_count_ = 0;
  std::unique_ptr<notify::Dispatcher> dispatcher_;
  std::unique_ptr<AlertMonitor> monitor_;
};

}  // namespace gpuwatch::alert_runtime
