#pragma once
// The alert engine running live (serve, record): once per sample tick, evaluate the rules, keep
// every state change in the history database (table alerts, alert_events), hand the events to the
// notifier and the alerts to the HTTP board. At start it restores the pending and firing alerts
// the database holds, so a restart neither forgets a firing alert nor notifies it again.
//
// tick() runs on the caller's thread (serve: the diagnosis thread; record: its loop), never on a
// GPU's sampling thread; it costs the evaluation plus, only when something changed, one SQLite
// transaction. A database that cannot be written is told once; the alerts go on in memory.
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "alert_runtime/time_map.hpp"
#include "alerts/alert.hpp"
#include "alerts/engine.hpp"
#include "core/result.hpp"

namespace gpuwatch::store {
class HistoryDatabase;
}

namespace gpuwatch::alert_runtime {

struct MonitorOptions {
  std::string db_path;  // the history database; "": state in memory only (serve --no-record)
  TimeMap clock;        // engine time against wall time (the simulator's time_scale)
  // Each evaluation's events (called only when there are some) and the alerts pending or firing
  // after it. On the evaluating thread: keep it cheap (the notification dispatcher only queues).
  std::function<void(const std::vector<alerts::AlertEvent>&, const std::vector<alerts::Alert>&)> notify;
  // After every evaluation: the alerts pending or firing, and the events (the HTTP board).
  std::function<void(std::vector<alerts::Alert>, const std::vector<alerts::AlertEvent>&)> publish;
  // One line for the log (stderr); may be empty.
  std::function<void(const std::string&)> log;
};

class AlertMonitor {
 public:
  // Opens the database (creating and migrating it) and restores its open alerts into ENGINE.
  static core::Result<std::unique_ptr<AlertMonitor>> open(alerts::Engine engine, MonitorOptions options);
  ~AlertMonitor();
  AlertMonitor(const AlertMonitor&) = delete;
  AlertMonitor& operator=(const AlertMonitor&) = delete;

  // One evaluation. TICK's times are wall times; they are mapped to the engine's clock here.
  void tick(alerts::TickInput tick);

  std::vector<alerts::Alert> active() const;  // pending and firing, wall times
  std::size_t restored() const { return restored_; }
  std::size_t rule_count() const;

 private:
  AlertMonitor(alerts::Engine engine, MonitorOptions options, std::unique_ptr<store::HistoryDatabase> db);
  void persist(const std::vector<alerts::Alert>& active, const std::vector<alerts::AlertEvent>& events);

  alerts::Engine engine_;
  MonitorOptions options_;
  std::unique_ptr<store::HistoryDatabase> db_;
  std::set<std::string> written_;        // fingerprint|state last written for each open alert
  std::set<std::string> open_;           // fingerprints pending or firing at the last tick
  bool db_failed_ = false;
  std::size_t restored_ = 0;
  mutable std::mutex mutex_;
  std::vector<alerts::Alert> active_;    // wall times, for active()
};

}  // namespace gpuwatch::alert_runtime
