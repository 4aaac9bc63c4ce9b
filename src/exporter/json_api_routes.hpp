#pragma once
// Registers the JSON API on the exporter's HTTP server (called from http_server.cpp;
// cpp-httplib is only forward-declared here):
//   GET /api/v1/snapshot            latest sample of every GPU
//   GET /api/v1/history?seconds=N&gpu=I   columnar recent samples from the ring buffer, or
//                                   from the store (stored_history) beyond the buffer's span
//   GET /api/v1/events[?gpu=I]      server-sent events, one "sample" event per new sample, and
//                                   one "alert" event per alert event (firing, repeat, resolved)
//   GET /api/v1/alerts              the local alert engine's pending, firing and recently resolved alerts
// Each open event stream holds one HTTP worker for its whole life, so streams are capped
// (answer 503 beyond) to keep workers free for /metrics; stop() ends them promptly.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>

#include "exporter/alert_board.hpp"
#include "exporter/collector.hpp"
#include "exporter/sample_history.hpp"
#include "exporter/stored_history.hpp"

namespace httplib {
class Server;
}

namespace gpuwatch::exporter {

struct ApiOptions {
  std::shared_ptr<SampleHistory> history;  // null: /api/v1/history and /api/v1/events answer 404
  std::size_t max_event_streams = 0;       // concurrent /api/v1/events clients, 503 beyond
                                           // (MetricsServer turns 0 into --threads - 2)
  std::chrono::milliseconds interval{1000};  // the sampling interval (reported by /api/v1/history)
  std::chrono::milliseconds keep_alive{10000};  // a ": keep-alive" comment after this much silence
  // Older history (serve's database): /api/v1/history?seconds=N with N beyond what the ring
  // buffer holds (capacity x interval) is answered from it, at most max_stored_points per GPU.
  StoredHistoryReader stored_history;
  std::size_t max_stored_points = 1000;
  // The local alert engine's results: GET /api/v1/alerts, and "alert" events on the event
  // stream. Null: /api/v1/alerts says the engine is off.
  std::shared_ptr<AlertBoard> alerts;
};

class ApiRoutes {
 public:
  ApiRoutes(const Collector& collector, ApiOptions options);
  void add_to(httplib::Server& server);
  // Ends every event stream at its next wake-up (at once when they wait for samples).
  void stop();
  std::size_t open_event_streams() const { return streams_.load(); }

 private:
  const Collector& collector_;
  ApiOptions options_;
  std::atomic<std::size_t> streams_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace gpuwatch::exporter
