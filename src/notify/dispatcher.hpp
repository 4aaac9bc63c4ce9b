#pragma once
// Delivers alert events to the channels, off the caller's thread.
//
// submit() (called by the alert engine once per tick, never on a sampling thread) only moves
// the batch into a list and wakes the intake thread: it never blocks on I/O. The intake thread
// groups the batch per host and queues one message per channel per group (Queue: the history
// database, or memory). Each channel has its own worker thread, so a slow or dead receiver
// only delays its own channel: it sends its channel's due messages in order, within the rate
// limit, each call bounded by the channel's timeout; a failed attempt is retried with
// exponential backoff (RetryPolicy); a message is marked delivered once the receiver accepts it
// and is never sent again. A message whose request went out but got no answer (a timeout, a
// crash mid-send) is not resent, since its receiver may have it (at most once), except to
// alertmanager, where a second copy is harmless. Alertmanager channels also re-send the firing
// alerts (update_firing) every resend interval, as Prometheus does.
// stop() aborts calls in flight and joins every thread within about two seconds; a message
// cut short stays queued and the next start sends it.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "alerts/alert.hpp"
#include "notify/channel.hpp"
#include "notify/queue.hpp"
#include "notify/retry_policy.hpp"

namespace gpuwatch::notify {

struct DispatcherOptions {
  RetryPolicy retry;
  std::chrono::hours keep_sent{24 * 7};  // delivered and failed rows are pruned after this
  // Where state changes go (a channel failing, recovering, giving a message up). Default: stderr.
  std::function<void(const std::string&)> log;
  // The clock (tests inject one). Default: the system clock.
  std::function<alerts::TimePoint()> now;
};

// Per channel, since start().
struct ChannelStats {
  std::string channel;
  std::uint64_t delivered = 0;   // messages the receiver accepted
  std::uint64_t failed = 0;      // messages given up
  std::uint64_t attempts_failed = 0;
  std::string last_error;        // "" when the latest attempt succeeded
};

class Dispatcher {
 public:
  Dispatcher(std::vector<Channel> channels, std::unique_ptr<Queue> queue, DispatcherOptions options = {});
  ~Dispatcher();  // stop()
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Starts the threads; resumes messages a previous run left queued.
  void start();
  // Hands over one tick's events. Cheap: a lock and a move.
  void submit(std::vector<alerts::AlertEvent> events);
  // The alerts firing now (alertmanager channels re-send them). Cheap.
  void update_firing(std::vector<alerts::Alert> firing);
  // Prompt: aborts sends in flight, joins the threads. Idempotent.
  void stop();

  const std::vector<Channel>& channels() const { return channels_; }
  std::vector<ChannelStats> stats() const;
  // Messages queued and not yet delivered or given up, on every channel.
  int pending() const;

 private:
  struct Worker;
  void intake_loop();
  void worker_loop(Worker& worker);
  void send_one(Worker& worker, const Delivery& row);
  void resend_firing(Worker& worker);
  void resume_interrupted();
  alerts::TimePoint now() const;
  std::int64_t now_ms() const;
  void log(const std::string& line) const;

  std::vector<Channel> channels_;
  std::unique_ptr<Queue> queue_;
  DispatcherOptions options_;
  std::atomic<bool> stopping_{false};
  bool started_ = false;

  std::mutex intake_mutex_;
  std::condition_variable intake_cv_;
  std::vector<std::vector<alerts::AlertEvent>> batches_;
  std::vector<alerts::Alert> firing_;
  std::thread intake_thread_;

  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace gpuwatch::notify
