#include "notify/dispatcher.hpp"
#include "core/sink_text.hpp"
#include "core/json_text.hpp"

#include <cstdio>

#include "notify/group.hpp"
#include "notify/rate_limiter.hpp"
#include "notify/sender.hpp"

namespace gpuwatch::notify {

struct Dispatcher::Worker {
  explicit Worker(const Channel& c) : channel(c), limiter(c.rate_limit) {}
  const Channel& channel;
  RateLimiter limiter;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  bool wake = false;
  bool failing = false;           // the latest attempt failed (log the change, not each failure)
  ChannelStats stats;             // under mutex
  std::int64_t next_resend_ms = 0;  // alertmanager: when the firing alerts go again
};

namespace {

constexpr std::chrono::milliseconds kIdleWait{5000};  // re-check the queue at least this often

bool idempotent(const Channel& channel) { return channel.type == ChannelType::Alertmanager; }

std::string plural(std::int64_t ms) {
  return ms < 1000 ? std::to_string(ms) + " ms" : std::to_string((ms + 500) / 1000) + " s";
}

}  // namespace

Dispatcher::Dispatcher(std::vector<Channel> channels, std::unique_ptr<Queue> queue, DispatcherOptions options)
    : channels_(std::move(channels)), queue_(std::move(queue)), options_(std::move(options)) {
  for (const auto& channel : channels_) {
    workers_.push_back(std::make_unique<Worker>(channel));
    workers_.back()->stats.channel = channel.name;
  }
}

Dispatcher::~Dispatcher() { stop(); }

alerts::TimePoint Dispatcher::now() const { return options_.now ? options_.now() : std::chrono::system_clock::now(); }

std::int64_t Dispatcher::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now().time_since_epoch()).count();
}

void Dispatcher::log(const std::string& given) const {
  // One line, whatever a receiver or a channel's name carried (issue 31).
  const std::string line = core::terminal_text(given);
  if (options_.log) options_.log(line);
  else std::fprintf(stderr, "gpuwatch: notify: %s\n", line.c_str());
}

void Dispatcher::start() {
  if (started_ || channels_.empty()) return;
  started_ = true;
  resume_interrupted();
  const std::int64_t keep_ms = std::chrono::duration_cast<std::chrono::milliseconds>(options_.keep_sent).count();
  (void)queue_->prune(now_ms() - keep_ms);
  intake_thread_ = std::thread([this] { intake_loop(); });
  for (auto& worker : workers_) {
    Worker* w = worker.get();
    w->thread = std::thread([this, w] { worker_loop(*w); });
  }
}

void Dispatcher::stop() {
  if (stopping_.exchange(true)) return;
  intake_cv_.notify_all();
  for (auto& worker : workers_) {
    {
      std::lock_guard lock(worker->mutex);
      worker->wake = true;
    }
    worker->cv.notify_all();
  }
  if (intake_thread_.joinable()) intake_thread_.join();
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

void Dispatcher::submit(std::vector<alerts::AlertEvent> events) {
  if (events.empty() || channels_.empty()) return;
  {
    std::lock_guard lock(intake_mutex_);
    batches_.push_back(std::move(events));
  }
  intake_cv_.notify_one();
}

void Dispatcher::update_firing(std::vector<alerts::Alert> firing) {
  std::lock_guard lock(intake_mutex_);
  firing_ = std::move(firing);
}

std::vector<ChannelStats> Dispatcher::stats() const {
  std::vector<ChannelStats> out;
  for (const auto& worker : workers_) {
    std::lock_guard lock(worker->mutex);
    out.push_back(worker->stats);
  }
  return out;
}

int Dispatcher::pending() const {
  int count = 0;
  for (const auto& channel : channels_) {
    auto rows = queue_->rows(channel.name, 100000);
    if (!rows) continue;
    for (const auto& row : *rows) count += (!row.delivered_ms && !row.failed_ms) ? 1 : 0;
  }
  return count;
}

// Rows a previous run left mid-send (it was killed): their receiver may have them.
void Dispatcher::resume_interrupted() {
  auto rows = queue_->interrupted();
  if (!rows) {
    log(rows.error().message);
    return;
  }
  for (const auto& row : *rows) {
    const Channel* channel = nullptr;
    for (const auto& c : channels_) {
      if (c.name == row.channel) channel = &c;
    }
    if (channel == nullptr) continue;  // not configured now: left as it is
    if (idempotent(*channel)) {
      (void)queue_->mark_retry(row.id, now_ms(), row.status, "interrupted: sent again");
    } else {
      (void)queue_->mark_failed(row.id, now_ms(), row.status,
                                "interrupted mid-send by a stop: not sent again (the receiver may have it)");
      log(channel->name + ": message " + std::to_string(row.id) +
          " was being sent when gpuwatch stopped; not sent again (at most once)");
    }
  }
}

void Dispatcher::intake_loop() {
  while (true) {
    std::vector<std::vector<alerts::AlertEvent>> batches;
    {
      std::unique_lock lock(intake_mutex_);
      intake_cv_.wait(lock, [&] { return stopping_.load() || !batches_.empty(); });
      if (batches_.empty()) return;  // stopping; batches still listed are queued first
      batches.swap(batches_);
    }
    for (const auto& batch : batches) {
      for (const auto& group : group_by_host(batch)) {
        for (auto& worker : workers_) {
          const Group mine = filter_for(worker->channel, group);
          if (mine.events.empty()) continue;
          auto id = queue_->enqueue(worker->channel.name, core::json_text(group_to_json(mine)), now_ms());
          if (!id) {
            log(worker->channel.name + ": " + id.error().message);
            continue;
          }
          {
            std::lock_guard lock(worker->mutex);
            worker->wake = true;
          }
          worker->cv.notify_one();
        }
      }
    }
  }
}

void Dispatcher::resend_firing(Worker& worker) {
  std::vector<alerts::Alert> firing;
  {
    std::lock_guard lock(intake_mutex_);
    firing = firing_;
  }
  const std::int64_t start = now_ms();
  worker.next_resend_ms = start + std::chrono::duration_cast<std::chrono::milliseconds>(worker.channel.resend_interval).count();
  if (firing.empty()) return;
  const SendResult result = send_alertmanager(worker.channel, firing, now(), &stopping_);
  std::lock_guard lock(worker.mutex);
  if (result.accepted) {
    worker.stats.last_error.clear();
    if (worker.failing) log(worker.channel.name + ": delivering again (" + summarize(result) + ")");
    worker.failing = false;
  } else if (!stopping_) {
    worker.stats.last_error = summarize(result);
    if (!worker.failing) log(worker.channel.name + ": re-sending the firing alerts failed: " + worker.stats.last_error);
    worker.failing = true;
  }
}

void Dispatcher::send_one(Worker& worker, const Delivery& row) {
  const std::int64_t start = now_ms();
  auto group = group_from_json(nlohmann::json::parse(row.payload, nullptr, false));
  if (!group) {
    (void)queue_->mark_failed(row.id, start, std::nullopt, group.error().message);
    return;
  }
  if (auto marked = queue_->mark_sending(row.id, start); !marked) {
    log(worker.channel.name + ": " + marked.error().message);
    return;  // without the mark, sending could repeat after a crash: try again later
  }
  const SendResult result = send_group(worker.channel, *group, now(), std::to_string(row.id), &stopping_);
  const std::int64_t end = now_ms();
  const int attempts = row.attempts + 1;
  std::lock_guard lock(worker.mutex);
  if (result.accepted) {
    (void)queue_->mark_delivered(row.id, end, result.status);
    worker.limiter.record(end);
    ++worker.stats.delivered;
    worker.stats.last_error.clear();
    if (worker.failing) log(worker.channel.name + ": delivering again (" + summarize(result) + ")");
    worker.failing = false;
    return;
  }
  const std::string error = summarize(result);
  ++worker.stats.attempts_failed;
  worker.stats.last_error = error;
  if (stopping_ && !result.maybe_delivered) {
    (void)queue_->mark_retry(row.id, end, result.status, error);  // the next start sends it
    return;
  }
  std::string why;
  if (result.maybe_delivered && !idempotent(worker.channel)) {
    why = error + "; the request went out with no answer, so it is not sent again (the receiver may have it)";
  } else if (result.permanent) {
    why = error + "; retrying cannot help";
  } else if (should_give_up(row.created_ms, end, options_.retry)) {
    why = error + "; given up after " + std::to_string(attempts) + " attempts";
  }
  if (!why.empty()) {
    (void)queue_->mark_failed(row.id, end, result.status, why);
    ++worker.stats.failed;
    log(worker.channel.name + ": message " + std::to_string(row.id) + " not delivered: " + why);
    worker.failing = true;
    return;
  }
  const auto delay = backoff_delay(attempts, options_.retry);
  (void)queue_->mark_retry(row.id, end + delay.count(), result.status, error);
  if (!worker.failing) log(worker.channel.name + ": delivery failed (" + error + "); retrying in " + plural(delay.count()));
  worker.failing = true;
}

void Dispatcher::worker_loop(Worker& worker) {
  const bool resends = worker.channel.type == ChannelType::Alertmanager;
  worker.next_resend_ms = now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(worker.channel.resend_interval).count();
  while (!stopping_) {
    std::int64_t now = now_ms();
    if (resends && now >= worker.next_resend_ms) {
      resend_firing(worker);
      continue;
    }
    std::int64_t wake_at = now + kIdleWait.count();
    if (resends) wake_at = std::min(wake_at, worker.next_resend_ms);
    auto due = queue_->due(worker.channel.name, now, 1);
    if (!due) log(worker.channel.name + ": " + due.error().message);
    if (due && !due->empty()) {
      std::int64_t allowed;
      {
        std::lock_guard lock(worker.mutex);
        allowed = worker.limiter.next_allowed(now);
      }
      if (allowed <= now) {
        send_one(worker, due->front());
        continue;
      }
      wake_at = std::min(wake_at, allowed);  // over the rate limit: wait for a slot
    } else if (due) {
      auto next = queue_->next_due_ms(worker.channel.name);
      if (next && *next) wake_at = std::min(wake_at, **next);
    }
    std::unique_lock lock(worker.mutex);
    const auto wait = std::chrono::milliseconds(std::max<std::int64_t>(wake_at - now, 1));
    worker.cv.wait_for(lock, wait, [&] { return worker.wake || stopping_.load(); });
    worker.wake = false;
  }
}

}  // namespace gpuwatch::notify
