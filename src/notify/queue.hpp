#pragma once
// Where the dispatcher keeps messages until their receiver accepts them: the history database
// (store/delivery_queue: survives a restart) or memory (serve --no-record: lost on exit).
// Thread-safe: every channel's worker uses the one queue.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/delivery_queue.hpp"

namespace gpuwatch::notify {

using store::Delivery;

class Queue {
 public:
  virtual ~Queue() = default;
  virtual core::Result<std::int64_t> enqueue(const std::string& channel, const std::string& payload, std::int64_t now_ms) = 0;
  virtual core::Result<std::vector<Delivery>> due(const std::string& channel, std::int64_t now_ms, int limit) = 0;
  virtual core::Result<std::optional<std::int64_t>> next_due_ms(const std::string& channel) = 0;
  virtual core::Result<std::vector<Delivery>> interrupted() = 0;
  virtual core::Result<std::vector<Delivery>> rows(const std::string& channel, int limit) = 0;
  virtual core::Result<void> mark_sending(std::int64_t id, std::int64_t now_ms) = 0;
  virtual core::Result<void> mark_delivered(std::int64_t id, std::int64_t now_ms, std::optional<long> status) = 0;
  virtual core::Result<void> mark_retry(std::int64_t id, std::int64_t next_ms, std::optional<long> status,
                                        const std::string& error) = 0;
  virtual core::Result<void> mark_failed(std::int64_t id, std::int64_t now_ms, std::optional<long> status,
                                         const std::string& error) = 0;
  virtual core::Result<int> prune(std::int64_t before_ms) = 0;
};

std::unique_ptr<Queue> memory_queue();
// The queue in the history database at PATH (created and migrated if need be).
core::Result<std::unique_ptr<Queue>> database_queue(const std::string& path);

}  // namespace gpuwatch::notify
