#pragma once
// Registers the JSON API on the exporter's HTTP router (called from http_server.cpp):
//   GET /api/v1/snapshot            latest sample of every GPU
//   GET /api/v1/history?seconds=N&gpu=I   columnar recent samples from the ring buffer, or
//                                   from the store (stored_history) beyond the buffer's span
//   GET /api/v1/events[?gpu=I]      server-sent events, one "sample" event per new sample, and
//                                   one "alert" event per alert event (firing, repeat, resolved)
//   GET /api/v1/host[?seconds=N]    the host's latest sample and its recent series (issue 25)
//   GET /api/v1/alerts              the local alert engine's pending, firing and recently resolved alerts
//   GET /api/v1/findings?seconds=N | since=&until=   the grouped findings of a recorded range
//                                   (recorded_findings.hpp); slow, run off the I/O thread too
//   GET /api/v1/energy?seconds=N&gpu=I   energy, cost and CO2 of the rows /api/v1/history answers
//                                   with (energy_api.hpp; issue 29); slow
//   GET /api/v1/jobs[?limit=N]      the jobs `gpuwatch run` recorded in serve's database (jobs_api.hpp); slow
// An open event stream costs a connection and a poll every 100 ms (never a thread); streams
// are capped all the same (503 beyond); stop() ends them at their next poll. /api/v1/history
// may read the database: it is a slow route, run off the I/O thread (http/router.hpp).
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>

#include "live/alert_board.hpp"
#include "live/collector.hpp"
#include "exporter/jobs_api.hpp"
#include "exporter/recorded_findings.hpp"
#include "jobs/energy_rates.hpp"
#include "jobs/energy_report.hpp"
#include "live/sample_history.hpp"
#include "exporter/stored_history.hpp"

namespace gpuwatch::exporter::http {
class Router;
}

namespace gpuwatch::exporter {

struct ApiOptions {
  std::shared_ptr<live::SampleHistory> history;  // null: /api/v1/history and /api/v1/events answer 404
  std::size_t max_event_streams = 0;       // concurrent /api/v1/events clients, 503 beyond
                                           // (MetricsServer turns 0 into kDefaultEventStreams)
  std::chrono::milliseconds interval{1000};  // the sampling interval (reported by /api/v1/history)
  std::chrono::milliseconds keep_alive{10000};  // a ": keep-alive" comment after this much silence
  // Older history (serve's database): /api/v1/history?seconds=N with N beyond what the ring
  // buffer holds (capacity x interval) is answered from it, at most max_stored_points per GPU.
  StoredHistoryReader stored_history;
  std::size_t max_stored_points = 1000;
  // The local alert engine's results: GET /api/v1/alerts, and "alert" events on the event
  // stream. Null: /api/v1/alerts says the engine is off.
  std::shared_ptr<live::AlertBoard> alerts;
  // The grouped findings of a recorded range (serve's database): GET /api/v1/findings.
  // Null (serve --no-record): that route answers 404 and says why.
  RecordedFindingsReader recorded_findings;
  // issue 29: GET /api/v1/energy prices the energy at these rates (serve's --price-per-kwh,
  // --pue, --carbon-intensity, --energy-config); empty: no cost or CO2, the hints say what to set.
  jobs::EnergyRates energy_rates;
  jobs::HourOf hour_of = jobs::local_hour;  // for rates by hour of day
  // The jobs of `gpuwatch run` in serve's database: GET /api/v1/jobs. Null (serve --no-record): 404.
  JobsReader jobs;
};

class ApiRoutes {
 public:
  ApiRoutes(const live::Collector& collector, ApiOptions options);
  void add_to(http::Router& router);
  // Ends every event stream at its next poll.
  void stop();
  std::size_t open_event_streams() const { return streams_.load(); }

 private:
  const live::Collector& collector_;
  ApiOptions options_;
  std::atomic<std::size_t> streams_{0};
  std::atomic<bool> stopping_{false};
};

}  // namespace gpuwatch::exporter
