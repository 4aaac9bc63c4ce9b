#include "exporter/json_api_routes.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "exporter/energy_api.hpp"
#include "exporter/history_window.hpp"
#include "exporter/http/router.hpp"
#include "exporter/json_api.hpp"

namespace gpuwatch::exporter {
namespace {

const std::string kJson(kJsonContentType);
const std::string kEventStream(kEventStreamContentType);

void send_error(http::HttpResponse& res, int status, std::string_view message) {
  res.status = status;
  res.set_content(error_json(message), kJson);
}

// The GPUs a request answers for: ?gpu=I alone, or all of them.
std::vector<unsigned> requested_gpus(const HistoryRequest& request, unsigned gpu_count) {
  if (request.gpu) return {*request.gpu};
  std::vector<unsigned> gpus;
  for (unsigned i = 0; i < gpu_count; ++i) gpus.push_back(i);
  return gpus;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One open event stream: holds its slot while the connection holds it. poll() runs on the
// I/O thread every 100 ms and never waits: it sends what arrived since the last poll.
class EventStream final : public http::StreamSource {
 public:
  EventStream(std::atomic<std::size_t>& open, const std::atomic<bool>& stopping, const ApiOptions& options,
              std::uint64_t after)
      : count_(open), stopping_(stopping), options_(options), last_seq_(after) {}
  ~EventStream() override { --count_; }
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  std::optional<unsigned> gpu;
  std::uint64_t last_alert_seq = 0;

  std::optional<std::string> poll(std::chrono::steady_clock::time_point now) override {
    if (!greeted_) {  // something at once, so clients see the stream is open
      greeted_ = true;
      last_write_ = now;
      return std::string("retry: 2000\n\n");
    }
    // Shutting down: end the stream (the connection closes; an EventSource reconnects).
    if (stopping_) return std::nullopt;
    const live::SampleHistory& history = *options_.history;
    std::string text;
    if (const std::uint64_t latest = history.last_seq(); latest > last_seq_) {
      for (const auto& row : history.rows_after(last_seq_)) {
        if (!gpu || *gpu == row.gpu) text += sample_event(row);
        last_seq_ = std::max(last_seq_, row.seq);  // rows pushed since last_seq() was read
      }
      last_seq_ = std::max(last_seq_, latest);  // rows already dropped from the buffer are skipped
    }
    if (options_.alerts && options_.alerts->last_seq() > last_alert_seq) {
      for (const auto& [alert_seq, event] : options_.alerts->events_after(last_alert_seq)) {
        if (!gpu || !event.alert.gpu || *event.alert.gpu == *gpu) text += alert_event(alert_seq, event);
        last_alert_seq = alert_seq;
      }
    }
    if (text.empty() && now - last_write_ >= options_.keep_alive) text = ": keep-alive\n\n";
    if (!text.empty()) last_write_ = now;
    return text;
  }

 private:
  std::atomic<std::size_t>& count_;
  const std::atomic<bool>& stopping_;
  const ApiOptions& options_;
  std::uint64_t last_seq_;
  bool greeted_ = false;
  std::chrono::steady_clock::time_point last_write_{};
};

}  // namespace

ApiRoutes::ApiRoutes(const live::Collector& collector, ApiOptions options)
    : collector_(collector), options_(std::move(options)) {}

void ApiRoutes::stop() {
  stopping_ = true;
  if (options_.history) options_.history->wake_all();
}

void ApiRoutes::add_to(http::Router& router) {
  router.get("/api/v1/snapshot", [this](const http::HttpRequest&, http::HttpResponse& res) {
    std::string body;
    collector_.with_view([&](const live::LiveView& view) { body = snapshot_json(view); });
    res.set_header("Cache-Control", "no-store");
    res.set_content(std::move(body), kJson);
  });

  router.get("/api/v1/alerts", [this](const http::HttpRequest&, http::HttpResponse& res) {
    res.set_header("Cache-Control", "no-store");
    if (!options_.alerts) return res.set_content(alerts_api_json({}, {}, false), kJson);
    res.set_content(alerts_api_json(options_.alerts->active(), options_.alerts->recently_resolved(), true), kJson);
  });

  // Slow: it may read the database (the store reader has its own time limit), and a long
  // window renders a large answer. Run on the server's pool, never on the I/O thread.
  router.get("/api/v1/history", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    if (!options_.history) return send_error(res, 404, "history is off");
    auto request = parse_history_request(req.param("seconds"), req.param("gpu"), collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    const std::vector<unsigned> gpus = requested_gpus(*request, collector_.gpu_count());
    const double interval_s = std::chrono::duration<double>(options_.interval).count();
    res.set_header("Cache-Control", "no-store");
    auto window = history_window(*options_.history, options_.stored_history,
                                 {request->seconds, request->gpu, gpus, unix_now(), interval_s, options_.max_stored_points});
    res.set_content(history_json(window.rows, gpus, request->seconds, options_.history->capacity(), interval_s, window.origin),
                    kJson);
  }, http::Speed::Slow);

  // issue 29: the energy of the same rows /api/v1/history answers with (history_window.hpp), per
  // GPU and in all, priced at serve's rates. Slow: it may read the database.
  router.get("/api/v1/energy", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    if (!options_.history) return send_error(res, 404, "history is off (energy comes from it)");
    auto request = parse_history_request(req.param("seconds"), req.param("gpu"), collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    const std::vector<unsigned> gpus = requested_gpus(*request, collector_.gpu_count());
    const double interval_s = std::chrono::duration<double>(options_.interval).count();
    const double now = unix_now();
    res.set_header("Cache-Control", "no-store");
    auto window = history_window(*options_.history, options_.stored_history,
                                 {request->seconds, request->gpu, gpus, now, interval_s, options_.max_stored_points});
    res.set_content(energy_api_json(window.rows, gpus, EnergyWindow{request->seconds, now, interval_s}, window.origin,
                                    options_.energy_rates, options_.hour_of),
                    kJson);
  }, http::Speed::Slow);

  // issue 29: the jobs of `gpuwatch run` in serve's database, newest first. Slow: it reads the database.
  router.get("/api/v1/jobs", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    res.set_header("Cache-Control", "no-store");
    auto limit = parse_jobs_limit(req.param("limit"));
    if (!limit) return send_error(res, 400, limit.error().message);
    // No database: nothing recorded, said in a 200 (as /api/v1/alerts says the engine is off), so a
    // dashboard can show its jobs table without a failed request on every serve --no-record.
    if (!options_.jobs) return res.set_content(jobs_unrecorded_json(*limit), kJson);
    auto jobs = options_.jobs(*limit);
    if (!jobs) {
      if (jobs.error().code == kJobsBusy) res.set_header("Retry-After", "5");
      return send_error(res, jobs.error().code == kJobsBusy ? 503 : 500, jobs.error().message);
    }
    res.set_content(jobs_api_json(*jobs, *limit, std::chrono::system_clock::now()), kJson);
  }, http::Speed::Slow);

  // issue 25: the host's latest sample and its recent series (the history's host ring), for the
  // dashboard's host charts: ?seconds=N as /api/v1/history (everything held when absent).
  router.get("/api/v1/host", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    res.set_header("Cache-Control", "no-store");
    auto request = parse_history_request(req.param("seconds"), "", collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    std::shared_ptr<const host_signals::HostSample> latest;
    collector_.with_view([&](const live::LiveView& view) { latest = view.snapshot ? view.snapshot->host : nullptr; });
    std::vector<live::HostRow> rows;
    if (options_.history) {
      rows = options_.history->host_rows_since(request->seconds ? unix_now() - *request->seconds
                                                                : -std::numeric_limits<double>::infinity());
    }
    res.set_content(host_api_json(latest.get(), rows), kJson);
  }, http::Speed::Slow);  // a long ring renders a large answer: off the I/O thread

  // Slow: it replays the range through the diagnose engine (the reader has its own time limit).
  router.get("/api/v1/findings", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    res.set_header("Cache-Control", "no-store");
    if (!options_.recorded_findings)
      return send_error(res, 404, "no history database (serve --no-record): findings of a range need one");
    auto range = parse_findings_range(req.param("seconds"), req.param("since"), req.param("until"),
                                      std::chrono::system_clock::now());
    if (!range) return send_error(res, 400, range.error().message);
    auto recorded = options_.recorded_findings(*range);
    if (!recorded) {
      if (recorded.error().code == kFindingsBusy) res.set_header("Retry-After", "5");
      return send_error(res, recorded.error().code == kFindingsBusy ? 503 : 500, recorded.error().message);
    }
    res.set_content(recorded_findings_json(*recorded, *range), kJson);
  }, http::Speed::Slow);

  router.get("/api/v1/events", [this](const http::HttpRequest& req, http::HttpResponse& res) {
    if (!options_.history) return send_error(res, 404, "history is off (events come from it)");
    auto request = parse_history_request("", req.param("gpu"), collector_.gpu_count());
    if (!request) return send_error(res, 400, request.error().message);
    if (stopping_) return send_error(res, 503, "shutting down");
    if (++streams_ > options_.max_event_streams) {
      --streams_;
      res.set_header("Retry-After", "5");
      return send_error(res, 503,
                        "too many event streams (" + std::to_string(options_.max_event_streams) +
                            "): close one, or raise --max-event-streams");
    }
    // From now on EventStream's destructor gives the slot back.
    std::uint64_t after = options_.history->last_seq();
    std::string last_id(req.header("Last-Event-ID"));  // a reconnecting EventSource resumes
    std::uint64_t resume = 0;
    auto [end, ec] = std::from_chars(last_id.data(), last_id.data() + last_id.size(), resume);
    if (!last_id.empty() && ec == std::errc() && end == last_id.data() + last_id.size() && resume <= after) {
      after = resume;
    }
    auto stream = std::make_shared<EventStream>(streams_, stopping_, options_, after);
    stream->gpu = request->gpu;
    if (options_.alerts) stream->last_alert_seq = options_.alerts->last_seq();  // alert events from now on
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    res.set_stream(std::move(stream), kEventStream);
  });
}

}  // namespace gpuwatch::exporter
