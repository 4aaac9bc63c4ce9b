#include "exporter/json_api_routes.hpp"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "exporter/json_api.hpp"

namespace gpuwatch::exporter {
namespace {

const std::string kJson(kJsonContentType);
const std::string kEventStream(kEventStreamContentType);

void send_error(httplib::Response& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(error_json(message), kJson);
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One open event stream: releases its slot when httplib drops the content provider.
struct EventStream {
  EventStream(std::atomic<std::size_t>& open, std::uint64_t after) : count(open), last_seq(after) {}
  ~EventStream() { --count; }
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;
  std::atomic<std::size_t>& count;
  std::uint64_t last_seq;
  std::uint64_t last_alert_seq = 0;
  std::optional<unsigned> gpu;
  bool greeted = false;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
};

}  // namespace

ApiRoutes::ApiRoutes(const Collector& collector, ApiOptions options)
    : collector_(collector), options_(std::move(options)) {}

void ApiRoutes::stop() {
  stopping_ = true;
  if (options_.history) options_.history->wake_all();
}

void ApiRoutes::add_to(httplib::Server& server) {
  server.Get("/api/v1/snapshot", [this](const httplib::Request&, httplib::Response& res) {
    std::string body;
    collector_.with_view([&](const ExportView& view) { body = snapshot_json(view); });
    res.set_header("Cache-Control", "no-store");
    // The dashboard polls this every few seconds: a kept-alive connection would pin a worker for good.
    res.set_header("Connection", "close");
    res.set_content(body, kJson);
  });

  server.Get("/api/v1/alerts", [this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_header("Connection", "close");  // as /api/v1/snapshot: a polling page must not pin a worker
    if (!options_.alerts) return res.set_content(alerts_api_json({}, {}, false), kJson);
    res.set_content(alerts_api_json(options_.alerts->active(), options_.alerts->recently_resolved(), true), kJson);
  });

  server.Get("/api/v1/history", [this](const httplib::Request& req, httplib::Response& res) {
    if (!options_.history) return send_error(res, 404, "history is off");
    auto request = parse_history_request(req.get_param_value("seconds"), req.get_param_value("gpu"),
                                         collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    std::vector<unsigned> gpus;
    if (request->gpu) {
      gpus.push_back(*request->gpu);
    } else {
      for (unsigned i = 0; i < collector_.gpu_count(); ++i) gpus.push_back(i);
    }
    const double now = unix_now();
    const double interval_s = std::chrono::duration<double>(options_.interval).count();
    double since = request->seconds ? now - *request->seconds : -std::numeric_limits<double>::infinity();
    res.set_header("Cache-Control", "no-store");
    res.set_header("Connection", "close");  // as /api/v1/snapshot: a polling page must not pin a worker
    HistoryOrigin origin;
    // Beyond the ring buffer's span: the store, averaged into buckets (same shape).
    if (request->seconds && options_.stored_history &&
        *request->seconds > static_cast<double>(options_.history->capacity()) * interval_s) {
      auto stored = options_.stored_history(
          StoredHistoryQuery{since, now, request->gpu, options_.max_stored_points, interval_s});
      if (stored) {
        origin.source = "store";
        origin.resolution_s = stored->resolution_s;
        return res.set_content(history_json(stored->rows, gpus, request->seconds, options_.history->capacity(),
                                            interval_s, origin),
                               kJson);
      }
      origin.store_error = stored.error().message;  // answer from memory, and say why
    }
    auto rows = options_.history->rows_since(since, request->gpu);
    res.set_content(history_json(rows, gpus, request->seconds, options_.history->capacity(), interval_s, origin),
                    kJson);
  });

  server.Get("/api/v1/events", [this](const httplib::Request& req, httplib::Response& res) {
    if (!options_.history) return send_error(res, 404, "history is off (events come from it)");
    auto request = parse_history_request("", req.get_param_value("gpu"), collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    if (stopping_) return send_error(res, 503, "shutting down");
    if (++streams_ > options_.max_event_streams) {
      --streams_;
      res.set_header("Retry-After", "5");
      return send_error(res, 503,
                        "too many event streams (" + std::to_string(options_.max_event_streams) +
                            "): each holds an HTTP worker; raise --threads or close one");
    }
    // From now on EventStream's destructor gives the slot back.
    std::uint64_t after = options_.history->last_seq();
    std::string last_id = req.get_header_value("Last-Event-ID");  // a reconnecting EventSource resumes
    std::uint64_t resume = 0;
    auto [end, ec] = std::from_chars(last_id.data(), last_id.data() + last_id.size(), resume);
    if (!last_id.empty() && ec == std::errc() && end == last_id.data() + last_id.size() && resume <= after) {
      after = resume;
    }
    auto stream = std::make_shared<EventStream>(streams_, after);
    stream->gpu = request->gpu;
    if (options_.alerts) stream->last_alert_seq = options_.alerts->last_seq();  // alert events from now on
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    // When the stream ends (shutdown, or a client that stops reading), close the connection rather
    // than wait the keep-alive timeout on it: the worker goes back to /metrics, and stop() is prompt.
    res.set_header("Connection", "close");
    res.set_chunked_content_provider(kEventStream, [this, stream](std::size_t, httplib::DataSink& sink) {
      SampleHistory& history = *options_.history;
      auto now = std::chrono::steady_clock::now();
      if (!stream->greeted) {  // something at once, so clients see the stream is open
        stream->greeted = true;
        static const std::string hello = "retry: 2000\n\n";
        return sink.write(hello.data(), hello.size());
      }
      // Shutting down: drop the connection (false) rather than end the stream cleanly. httplib
      // would otherwise keep the worker waiting for the client's next request for the whole
      // keep-alive timeout (its keep-alive wait ignores stop()); an EventSource reconnects anyway.
      if (stopping_) return false;
      std::uint64_t seq = history.wait_after(stream->last_seq, std::chrono::milliseconds(200));
      if (stopping_) return false;
      std::string text;
      if (seq > stream->last_seq) {
        for (const auto& row : history.rows_after(stream->last_seq)) {
          if (!stream->gpu || *stream->gpu == row.gpu) text += sample_event(row);
          seq = std::max(seq, row.seq);  // rows pushed since wait_after returned
        }
        stream->last_seq = seq;
      }
      if (options_.alerts && options_.alerts->last_seq() > stream->last_alert_seq) {
        for (const auto& [alert_seq, event] : options_.alerts->events_after(stream->last_alert_seq)) {
          if (!stream->gpu || !event.alert.gpu || *event.alert.gpu == *stream->gpu) text += alert_event(alert_seq, event);
          stream->last_alert_seq = alert_seq;
        }
      }
      if (text.empty() && now - stream->last_write >= options_.keep_alive) text = ": keep-alive\n\n";
      if (text.empty()) return sink.is_writable();
      stream->last_write = now;
      return sink.write(text.data(), text.size());
    });
  });
}

}  // namespace gpuwatch::exporter
