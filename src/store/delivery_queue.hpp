#pragma once
// The notification delivery queue (migration 7, table `deliveries`): one row per message per
// channel. A row is pending until the receiver accepts it (delivered_ms) or delivery is given up
// (failed_ms); sending_ms marks an attempt under way, so a row found with it set when the queue
// opens was cut short by a crash (its receiver may or may not have it). Used by src/notify through
// its own connection to the history file (WAL: the recorder's writes and these do not block
// each other for long). Not thread-safe: one caller at a time (notify's queue holds a mutex).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct Delivery {
  std::int64_t id = 0;
  std::string channel;
  std::int64_t created_ms = 0;
  std::string payload;            // the message as JSON (channel-independent)
  int attempts = 0;
  std::int64_t next_attempt_ms = 0;
  std::optional<std::int64_t> sending_ms;    // an attempt started and did not end
  std::optional<std::int64_t> delivered_ms;
  std::optional<std::int64_t> failed_ms;
  std::optional<long> status;
  std::string last_error;
};

class DeliveryQueue {
 public:
  // Opens (creating and migrating) the history database at PATH.
  static core::Result<std::unique_ptr<DeliveryQueue>> open(const std::string& path);
  ~DeliveryQueue();

  // A new pending row, first attempt at NOW_MS. Returns its id.
  core::Result<std::int64_t> enqueue(const std::string& channel, const std::string& payload, std::int64_t now_ms);
  // Pending rows of CHANNEL due at NOW_MS (no attempt under way), oldest first, at most LIMIT.
  core::Result<std::vector<Delivery>> due(const std::string& channel, std::int64_t now_ms, int limit);
  // The earliest next attempt among CHANNEL's pending rows (none: nullopt).
  core::Result<std::optional<std::int64_t>> next_due_ms(const std::string& channel);
  // Pending rows of any channel with an attempt under way: left by a process that died mid-send.
  core::Result<std::vector<Delivery>> interrupted();
  // Every row of CHANNEL ("" = all), newest first, at most LIMIT (for tests and `alerts`).
  core::Result<std::vector<Delivery>> rows(const std::string& channel, int limit);
  core::Result<int> pending_count(const std::string& channel);

  core::Result<void> mark_sending(std::int64_t id, std::int64_t now_ms);  // attempts + 1
  core::Result<void> mark_delivered(std::int64_t id, std::int64_t now_ms, std::optional<long> status);
  core::Result<void> mark_retry(std::int64_t id, std::int64_t next_attempt_ms, std::optional<long> status,
                                const std::string& error);
  core::Result<void> mark_failed(std::int64_t id, std::int64_t now_ms, std::optional<long> status,
                                 const std::string& error);
  // Deletes delivered and failed rows older than BEFORE_MS. Returns how many.
  core::Result<int> prune(std::int64_t before_ms);

 private:
  explicit DeliveryQueue(std::unique_ptr<HistoryDatabase> db);
  std::unique_ptr<HistoryDatabase> db_;
};

}  // namespace gpuwatch::store
