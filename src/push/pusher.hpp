#pragma once
// The push loop (one thread): every interval it takes the /metrics body (COLLECT), turns it into
// a WriteRequest stamped now, appends it to the segment buffer, and sends the buffer oldest first.
// 2xx: sent, removed. 5xx, 429, 408 or no answer: kept, retried with backoff (100 ms doubling to
// 5 s, Prometheus's defaults). Other 4xx: the receiver refused the data: dropped. The buffer's
// bounds drop the oldest segments, with a warning. Its health is appended to /metrics.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/result.hpp"
#include "notify/send_result.hpp"
#include "push/push_config.hpp"

namespace gpuwatch::push {

struct PushHealth {
  std::uint64_t pending = 0, sent = 0, failed = 0, dropped = 0;
};

struct PusherOptions {
  PushConfig config;                          // buffer_dir resolved
  std::chrono::milliseconds interval{1000};
  std::function<std::string()> collect;       // the /metrics body
  std::function<void(const std::string&)> log;
  // The HTTP edge (notify's libcurl module); replaced in tests.
  std::function<notify::SendResult(const notify::HttpRequest&, const std::atomic<bool>*)> post;
};

// The request remote-write 1.0 asks for: headers, auth, TLS, the compressed BODY.
notify::HttpRequest make_remote_write_request(const PushConfig& config, std::string body);

// The four gpuwatch_remote_write_samples_* families (text format 0.0.4).
void append_health_metrics(const PushHealth& health, std::string& out);

class Pusher {
 public:
  static core::Result<std::unique_ptr<Pusher>> start(PusherOptions options);
  ~Pusher();
  Pusher(const Pusher&) = delete;
  Pusher& operator=(const Pusher&) = delete;

  void stop();  // prompt: a request in flight is cancelled; what is unsent stays on disk
  PushHealth health() const;
  void append_metrics(std::string& out) const { append_health_metrics(health(), out); }
  std::string describe() const;  // logged at start

 private:
  explicit Pusher(PusherOptions options, SegmentBuffer buffer);
  void run();
  void tick(std::chrono::system_clock::time_point now);
  bool send_oldest();  // true: sent or dropped (go on at once); false: back off

  PusherOptions options_;
  SegmentBuffer buffer_;
  std::atomic<std::uint64_t> pending_{0}, sent_{0}, failed_{0}, dropped_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::milliseconds backoff_{0};
  bool receiver_down_logged_ = false;
  std::chrono::steady_clock::time_point last_drop_warning_{};
  std::thread thread_;
};

}  // namespace gpuwatch::push
