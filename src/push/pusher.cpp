#include "push/pusher.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "notify/channel.hpp"
#include "push/exposition_series.hpp"
#include "push/snappy_block.hpp"

namespace gpuwatch::push {
namespace {

constexpr std::chrono::milliseconds kMinBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{5000};

std::int64_t epoch_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

notify::HttpRequest make_remote_write_request(const PushConfig& config, std::string body) {
  notify::HttpRequest request;
  request.url = config.url;
  request.headers = {"Content-Encoding: snappy", "Content-Type: application/x-protobuf",
                     "X-Prometheus-Remote-Write-Version: 0.1.0"};
  if (!config.bearer_token.empty()) request.headers.push_back("Authorization: Bearer " + config.bearer_token);
  request.username = config.username;
  request.password = config.password;
  request.tls = config.tls;
  request.timeout = config.timeout;
  request.body = std::move(body);
  return request;
}

std::string format_byte_limit(std::uintmax_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<std::uintmax_t>(value))) return fmt::format("{} {}", static_cast<std::uintmax_t>(value), kUnits[unit]);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string buffer_bound_warning(const BufferLimits& limits, std::uint64_t dropped) {
  return fmt::format("remote-write: WARNING: the buffer reached its bound ({}, {} s); dropped the oldest {} samples",
                     format_byte_limit(limits.max_bytes),
                     std::chrono::duration_cast<std::chrono::seconds>(limits.max_age).count(), dropped);
}

void append_health_metrics(const PushHealth& health, std::string& out) {
  out += fmt::format(
      "# HELP gpuwatch_remote_write_samples_pending Samples in the remote-write buffer, not yet accepted by the receiver.\n"
      "# TYPE gpuwatch_remote_write_samples_pending gauge\n"
      "gpuwatch_remote_write_samples_pending {}\n"
      "# HELP gpuwatch_remote_write_samples_sent_total Samples the remote-write receiver accepted.\n"
      "# TYPE gpuwatch_remote_write_samples_sent_total counter\n"
      "gpuwatch_remote_write_samples_sent_total {}\n"
      "# HELP gpuwatch_remote_write_samples_failed_total Samples in remote-write requests that failed (each attempt; retried unless dropped).\n"
      "# TYPE gpuwatch_remote_write_samples_failed_total counter\n"
      "gpuwatch_remote_write_samples_failed_total {}\n"
      "# HELP gpuwatch_remote_write_samples_dropped_total Samples given up: beyond the buffer's size or age bound, or refused by the receiver (4xx).\n"
      "# TYPE gpuwatch_remote_write_samples_dropped_total counter\n"
      "gpuwatch_remote_write_samples_dropped_total {}\n",
      health.pending, health.sent, health.failed, health.dropped);
}

core::Result<std::unique_ptr<Pusher>> Pusher::start(PusherOptions options) {
  auto buffer = SegmentBuffer::open(options.config.buffer_dir, options.config.limits);
  if (!buffer) return buffer.error();
  if (!options.post) options.post = [](const notify::HttpRequest& r, const std::atomic<bool>* c) { return notify::http_post(r, c); };
  if (!options.log) options.log = [](const std::string&) {};
  std::unique_ptr<Pusher> pusher(new Pusher(std::move(options), std::move(*buffer)));
  pusher->pending_ = pusher->buffer_.pending_samples();
  pusher->options_.log(pusher->describe());  // before the thread: it alone uses the buffer from then on
  pusher->thread_ = std::thread([p = pusher.get()] { p->run(); });
  return pusher;
}

Pusher::Pusher(PusherOptions options, SegmentBuffer buffer) : options_(std::move(options)), buffer_(std::move(buffer)) {}

Pusher::~Pusher() { stop(); }

void Pusher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

PushHealth Pusher::health() const { return {pending_.load(), sent_.load(), failed_.load(), dropped_.load()}; }

std::string Pusher::describe() const {
  return fmt::format("remote-write: pushing to {} every {} ms (buffer {}: {} samples pending, at most {} and {} s)",
                     notify::redact_url(options_.config.url), options_.interval.count(), buffer_.dir().string(),
                     pending_.load(), format_byte_limit(options_.config.limits.max_bytes),
                     std::chrono::duration_cast<std::chrono::seconds>(options_.config.limits.max_age).count());
}

std::chrono::milliseconds Pusher::tick(std::chrono::system_clock::time_point now) {
  Collected collected = options_.collect();
  if (!collected.ready && unready_ticks_ < kMaxUnreadyTicks) {  // a series without its GPU's labels would linger in the receiver
    if (++unready_ticks_ < kMaxUnreadyTicks) return collected.next_samples_in;
    options_.log(fmt::format("remote-write: a GPU still has no sample after {} ticks; pushing what there is", kMaxUnreadyTicks));
  }
  std::string& text = collected.text;
  append_health_metrics(health(), text);  // the pushed series are those of /metrics, health included
  auto series = series_from_exposition(text, epoch_ms(now), options_.config.external_labels);
  stamp_gpu_series(series, collected.gpus, epoch_ms(now), last_pushed_ms_);
  if (series.empty()) return collected.next_samples_in;
  const auto samples = series.size();
  const std::string body = snappy_compress(encode_write_request(std::move(series)));
  note_dropped(buffer_.enforce_limits(epoch_ms(now), body.size()));  // room first: the folder never exceeds the bound
  if (auto r = buffer_.append(body, epoch_ms(now), samples); !r) {
    dropped_ += samples;
    options_.log("remote-write: " + r.error().message + "; these samples are dropped");
  }
  return collected.next_samples_in;
}

void Pusher::note_dropped(std::uint64_t dropped) {
  if (dropped == 0) return;
  dropped_ += dropped;
  const auto now = std::chrono::steady_clock::now();
  if (last_drop_warning_ == std::chrono::steady_clock::time_point{} || now - last_drop_warning_ > std::chrono::minutes(1)) {
    options_.log(buffer_bound_warning(options_.config.limits, dropped));
    last_drop_warning_ = now;
  }
}

bool Pusher::send_oldest() {
  const Segment* oldest = buffer_.oldest();
  const std::uint64_t samples = oldest->samples;
  auto body = buffer_.read(*oldest);
  if (!body) {  // unreadable segment: nothing to resend
    options_.log("remote-write: " + body.error().message + "; dropped");
    dropped_ += samples;
    buffer_.remove_oldest();
    return true;
  }
  const auto result = options_.post(make_remote_write_request(options_.config, std::move(*body)), &stopping_);
  if (result.accepted) {
    sent_ += samples;
    buffer_.remove_oldest();
    backoff_ = std::chrono::milliseconds(0);
    if (receiver_down_logged_) options_.log("remote-write: the receiver accepts again; sending what was buffered");
    receiver_down_logged_ = false;
    return true;
  }
  if (stopping_) return false;  // cancelled by stop(): not a failure, stays on disk
  failed_ += samples;
  const bool retryable = !result.permanent || (result.status && (*result.status == 429 || *result.status == 408));
  if (!retryable) {
    dropped_ += samples;
    buffer_.remove_oldest();
    options_.log(fmt::format("remote-write: the receiver refused {} samples ({}); dropped", samples,
                             notify::summarize(result)));
    return true;
  }
  if (!receiver_down_logged_) {
    options_.log(fmt::format("remote-write: cannot send ({}); buffering in {} and retrying", notify::summarize(result),
                             buffer_.dir().string()));
    receiver_down_logged_ = true;
  }
  backoff_ = std::clamp(backoff_ * 2, kMinBackoff, kMaxBackoff);
  return false;
}

void Pusher::run() {
  using steady = std::chrono::steady_clock;
  auto next_tick = steady::now();
  auto retry_at = steady::now();
  while (!stopping_) {
    const auto now = steady::now();
    if (now >= next_tick) {
      const auto next_samples_in = tick(std::chrono::system_clock::now());
      next_tick += options_.interval;
      if (next_tick < now) next_tick = now + options_.interval;  // fell behind: skip, never burst
      if (next_samples_in.count() > 0) {  // just after the collector's next samples, within half an interval of the schedule
        const auto interval = options_.interval;
        next_tick = now + std::clamp(next_samples_in + interval / 10, interval / 2, interval + interval / 2);
      }
    }
    note_dropped(buffer_.enforce_limits(epoch_ms(std::chrono::system_clock::now())));
    bool more = false;
    if (buffer_.oldest() && steady::now() >= retry_at) {
      more = send_oldest();
      if (!more) retry_at = steady::now() + backoff_;
    }
    pending_ = buffer_.pending_samples();
    if (more) continue;
    auto until = next_tick;
    if (buffer_.oldest()) until = std::min(until, retry_at);
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, until, [this] { return stopping_.load(); });
  }
}

}  // namespace gpuwatch::push
