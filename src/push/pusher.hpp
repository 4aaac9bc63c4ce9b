#pragma once
// The push loop (one thread): every interval it takes the /metrics body (COLLECT), turns it into
// a WriteRequest (each GPU's series stamped with the time its sample was taken, the others with
// the push's; nothing until every GPU has its first sample), appends it to the segment buffer, and sends the buffer oldest first.
// 2xx: sent, removed. 5xx, 429, 408 or no answer: kept, retried with backoff (100 ms doubling to
// 5 s, Prometheus's defaults). Other 4xx: the receiver refused the data: dropped. The buffer's
// bounds drop the oldest segments, with a warning. Its health is appended to /metrics.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.hpp"
#include "notify/send_result.hpp"
#include "push/exposition_series.hpp"
#include "push/push_config.hpp"

namespace gpuwatch::push {

struct PushHealth {
  std::uint64_t pending = 0, sent = 0, failed = 0, dropped = 0;
};

// What one tick takes from the live view.
struct Collected {
  bool ready = true;                  // false: a GPU has no sample yet (what /readyz answers): nothing is pushed
  std::string text;                   // the /metrics body
  std::vector<GpuSampleTime> gpus;    // when each GPU's series were sampled; empty: all stamped at the push
  // How long until every GPU's next sample should have finished: the pusher ticks then (plus a
  // margin), so each sample is pushed once, right after it was taken. 0: unknown, tick on the interval.
  std::chrono::milliseconds next_samples_in{0};
};

// Ticks a pusher waits for every GPU's first sample before it pushes what there is (a GPU whose
// first NVML call never returns must not silence the node).
inline constexpr int kMaxUnreadyTicks = 60;

struct PusherOptions {
  PushConfig config;                          // buffer_dir resolved
  std::chrono::milliseconds interval{1000};
  std::function<Collected()> collect;         // the /metrics body and its GPUs' sample times
  std::function<void(const std::string&)> log;
  // The HTTP edge (notify's libcurl module); replaced in tests.
  std::function<notify::SendResult(const notify::HttpRequest&, const std::atomic<bool>*)> post;
};

// The request remote-write 1.0 asks for: headers, auth, TLS, the compressed BODY.
notify::HttpRequest make_remote_write_request(const PushConfig& config, std::string body);

// A buffer bound in a unit that fits: "512 B", "256 KiB", "64 MiB", "1.5 GiB".
std::string format_byte_limit(std::uintmax_t bytes);
// Logged (at most once a minute) when the buffer's bounds dropped DROPPED samples.
std::string buffer_bound_warning(const BufferLimits& limits, std::uint64_t dropped);

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
  std::chrono::milliseconds tick(std::chrono::system_clock::time_point now);  // returns Collected::next_samples_in
  bool send_oldest();  // true: sent or dropped (go on at once); false: back off
  void note_dropped(std::uint64_t dropped);  // the buffer's bounds dropped these: counted, warned at most once a minute

  PusherOptions options_;
  SegmentBuffer buffer_;
  std::atomic<std::uint64_t> pending_{0}, sent_{0}, failed_{0}, dropped_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::milliseconds backoff_{0};
  bool receiver_down_logged_ = false;
  std::chrono::steady_clock::time_point last_drop_warning_{};
  std::map<std::string, std::int64_t> last_pushed_ms_;  // per GPU: its series' latest stamp (stamp_gpu_series)
  int unready_ticks_ = 0;
  std::thread thread_;
};

}  // namespace gpuwatch::push
