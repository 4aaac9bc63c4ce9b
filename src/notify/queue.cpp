#include "notify/queue.hpp"

#include <algorithm>
#include <mutex>

namespace gpuwatch::notify {
namespace {

bool pending(const Delivery& row) { return !row.delivered_ms && !row.failed_ms; }

class MemoryQueue final : public Queue {
 public:
  core::Result<std::int64_t> enqueue(const std::string& channel, const std::string& payload, std::int64_t now_ms) override {
    std::lock_guard lock(mutex_);
    Delivery row;
    row.id = ++last_id_;
    row.channel = channel;
    row.created_ms = now_ms;
    row.payload = payload;
    row.next_attempt_ms = now_ms;
    rows_.push_back(std::move(row));
    return last_id_;
  }
  core::Result<std::vector<Delivery>> due(const std::string& channel, std::int64_t now_ms, int limit) override {
    std::lock_guard lock(mutex_);
    std::vector<Delivery> out;
    for (const auto& row : rows_) {
      if (static_cast<int>(out.size()) == limit) break;
      if (pending(row) && !row.sending_ms && row.channel == channel && row.next_attempt_ms <= now_ms) out.push_back(row);
    }
    return out;
  }
  core::Result<std::optional<std::int64_t>> next_due_ms(const std::string& channel) override {
    std::lock_guard lock(mutex_);
    std::optional<std::int64_t> out;
    for (const auto& row : rows_) {
      if (pending(row) && !row.sending_ms && row.channel == channel) {
        out = out ? std::min(*out, row.next_attempt_ms) : row.next_attempt_ms;
      }
    }
    return out;
  }
  core::Result<std::vector<Delivery>> interrupted() override { return std::vector<Delivery>{}; }  // nothing survives a restart
  core::Result<std::vector<Delivery>> rows(const std::string& channel, int limit) override {
    std::lock_guard lock(mutex_);
    std::vector<Delivery> out;
    for (auto it = rows_.rbegin(); it != rows_.rend() && static_cast<int>(out.size()) < limit; ++it) {
      if (channel.empty() || it->channel == channel) out.push_back(*it);
    }
    return out;
  }
  core::Result<void> mark_sending(std::int64_t id, std::int64_t now_ms) override {
    return update(id, [&](Delivery& row) {
      row.sending_ms = now_ms;
      ++row.attempts;
    });
  }
  core::Result<void> mark_delivered(std::int64_t id, std::int64_t now_ms, std::optional<long> status) override {
    return update(id, [&](Delivery& row) {
      row.delivered_ms = now_ms;
      row.sending_ms.reset();
      row.status = status;
      row.last_error.clear();
    });
  }
  core::Result<void> mark_retry(std::int64_t id, std::int64_t next_ms, std::optional<long> status,
                                const std::string& error) override {
    return update(id, [&](Delivery& row) {
      row.next_attempt_ms = next_ms;
      row.sending_ms.reset();
      row.status = status;
      row.last_error = error;
    });
  }
  core::Result<void> mark_failed(std::int64_t id, std::int64_t now_ms, std::optional<long> status,
                                 const std::string& error) override {
    return update(id, [&](Delivery& row) {
      row.failed_ms = now_ms;
      row.sending_ms.reset();
      row.status = status;
      row.last_error = error;
    });
  }
  core::Result<int> prune(std::int64_t before_ms) override {
    std::lock_guard lock(mutex_);
    const auto before = rows_.size();
    std::erase_if(rows_, [&](const Delivery& row) {
      return (row.delivered_ms && *row.delivered_ms < before_ms) || (row.failed_ms && *row.failed_ms < before_ms);
    });
    return static_cast<int>(before - rows_.size());
  }

 private:
  template <typename F>
  core::Result<void> update(std::int64_t id, F&& change) {
    std::lock_guard lock(mutex_);
    for (auto& row : rows_) {
      if (row.id == id) {
        change(row);
        return {};
      }
    }
    return core::make_error("delivery queue: no message " + std::to_string(id));
  }
  std::mutex mutex_;
  std::vector<Delivery> rows_;
  std::int64_t last_id_ = 0;
};

class DatabaseQueue final : public Queue {
 public:
  explicit DatabaseQueue(std::unique_ptr<store::DeliveryQueue> queue) : queue_(std::move(queue)) {}
  core::Result<std::int64_t> enqueue(const std::string& channel, const std::string& payload, std::int64_t now_ms) override {
    std::lock_guard lock(mutex_);
    return queue_->enqueue(channel, payload, now_ms);
  }
  core::Result<std::vector<Delivery>> due(const std::string& channel, std::int64_t now_ms, int limit) override {
    std::lock_guard lock(mutex_);
    return queue_->due(channel, now_ms, limit);
  }
  core::Result<std::optional<std::int64_t>> next_due_ms(const std::string& channel) override {
    std::lock_guard lock(mutex_);
    return queue_->next_due_ms(channel);
  }
  core::Result<std::vector<Delivery>> interrupted() override {
    std::lock_guard lock(mutex_);
    return queue_->interrupted();
  }
  core::Result<std::vector<Delivery>> rows(const std::string& channel, int limit) override {
    std::lock_guard lock(mutex_);
    return queue_->rows(channel, limit);
  }
  core::Result<void> mark_sending(std::int64_t id, std::int64_t now_ms) override {
    std::lock_guard lock(mutex_);
    return queue_->mark_sending(id, now_ms);
  }
  core::Result<void> mark_delivered(std::int64_t id, std::int64_t now_ms, std::optional<long> status) override {
    std::lock_guard lock(mutex_);
    return queue_->mark_delivered(id, now_ms, status);
  }
  core::Result<void> mark_retry(std::int64_t id, std::int64_t next_ms, std::optional<long> status,
                                const std::string& error) override {
    std::lock_guard lock(mutex_);
    return queue_->mark_retry(id, next_ms, status, error);
  }
  core::Result<void> mark_failed(std::int64_t id, std::int64_t now_ms, std::optional<long> status,
                                 const std::string& error) override {
    std::lock_guard lock(mutex_);
    return queue_->mark_failed(id, now_ms, status, error);
  }
  core::Result<int> prune(std::int64_t before_ms) override {
    std::lock_guard lock(mutex_);
    return queue_->prune(before_ms);
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<store::DeliveryQueue> queue_;
};

}  // namespace

std::unique_ptr<Queue> memory_queue() { return std::make_unique<MemoryQueue>(); }

core::Result<std::unique_ptr<Queue>> database_queue(const std::string& path) {
  auto queue = store::DeliveryQueue::open(path);
  if (!queue) return queue.error();
  return std::unique_ptr<Queue>(std::make_unique<DatabaseQueue>(std::move(*queue)));
}

}  // namespace gpuwatch::notify
