#include "store/delivery_queue.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include "store/sql_values.hpp"

namespace gpuwatch::store {
namespace {

constexpr const char* kColumns =
    "id, channel, created_ms, payload, attempts, next_attempt_ms, sending_ms, delivered_ms, failed_ms, status, "
    "coalesce(last_error, '')";

Delivery read_row(SQLite::Statement& select) {
  Delivery row;
  row.id = select.getColumn(0).getInt64();
  row.channel = select.getColumn(1).getString();
  row.created_ms = select.getColumn(2).getInt64();
  row.payload = select.getColumn(3).getString();
  row.attempts = select.getColumn(4).getInt();
  row.next_attempt_ms = select.getColumn(5).getInt64();
  row.sending_ms = optional_int64(select.getColumn(6));
  row.delivered_ms = optional_int64(select.getColumn(7));
  row.failed_ms = optional_int64(select.getColumn(8));
  if (auto status = optional_int64(select.getColumn(9))) row.status = static_cast<long>(*status);
  row.last_error = select.getColumn(10).getString();
  return row;
}

void bind_status(SQLite::Statement& statement, const char* name, std::optional<long> status) {
  if (status) statement.bind(name, static_cast<std::int64_t>(*status));
  else statement.bind(name);  // NULL: no answer
}

core::Error sql_error(const std::string& what, const SQLite::Exception& e) {
  return core::make_error("delivery queue: cannot " + what + ": " + e.what(), 1);
}

template <typename F>
auto guarded(const std::string& what, F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SQLite::Exception& e) {
    return sql_error(what, e);
  }
}

}  // namespace

DeliveryQueue::DeliveryQueue(std::unique_ptr<HistoryDatabase> db) : db_(std::move(db)) {}
DeliveryQueue::~DeliveryQueue() = default;

core::Result<std::unique_ptr<DeliveryQueue>> DeliveryQueue::open(const std::string& path) {
  OpenOptions options;
  options.busy_timeout_ms = 2000;
  auto db = HistoryDatabase::open(path, options);
  if (!db) return db.error();
  return std::unique_ptr<DeliveryQueue>(new DeliveryQueue(std::move(*db)));
}

core::Result<std::int64_t> DeliveryQueue::enqueue(const std::string& channel, const std::string& payload,
                                                  std::int64_t now_ms) {
  return guarded("queue a message", [&]() -> core::Result<std::int64_t> {
    SQLite::Statement insert(db_->sql(),
                             "INSERT INTO deliveries (channel, created_ms, payload, next_attempt_ms) "
                             "VALUES (:channel, :now, :payload, :now)");
    insert.bind(":channel", channel);
    insert.bind(":now", now_ms);
    insert.bind(":payload", payload);
    insert.exec();
    return db_->sql().getLastInsertRowid();
  });
}

core::Result<std::vector<Delivery>> DeliveryQueue::due(const std::string& channel, std::int64_t now_ms, int limit) {
  return guarded("read the queue", [&]() -> core::Result<std::vector<Delivery>> {
    SQLite::Statement select(db_->sql(), std::string("SELECT ") + kColumns +
                                             " FROM deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL "
                                             "AND sending_ms IS NULL AND channel = :channel AND next_attempt_ms <= :now "
                                             "ORDER BY id LIMIT :limit");
    select.bind(":channel", channel);
    select.bind(":now", now_ms);
    select.bind(":limit", limit);
    std::vector<Delivery> out;
    while (select.executeStep()) out.push_back(read_row(select));
    return out;
  });
}

core::Result<std::optional<std::int64_t>> DeliveryQueue::next_due_ms(const std::string& channel) {
  return guarded("read the queue", [&]() -> core::Result<std::optional<std::int64_t>> {
    SQLite::Statement select(db_->sql(),
                             "SELECT min(next_attempt_ms) FROM deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL "
                             "AND sending_ms IS NULL AND channel = :channel");
    select.bind(":channel", channel);
    select.executeStep();
    return optional_int64(select.getColumn(0));
  });
}

core::Result<std::vector<Delivery>> DeliveryQueue::interrupted() {
  return guarded("read the queue", [&]() -> core::Result<std::vector<Delivery>> {
    SQLite::Statement select(db_->sql(), std::string("SELECT ") + kColumns +
                                             " FROM deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL "
                                             "AND sending_ms IS NOT NULL ORDER BY id");
    std::vector<Delivery> out;
    while (select.executeStep()) out.push_back(read_row(select));
    return out;
  });
}

core::Result<std::vector<Delivery>> DeliveryQueue::rows(const std::string& channel, int limit) {
  return guarded("read the queue", [&]() -> core::Result<std::vector<Delivery>> {
    SQLite::Statement select(db_->sql(), std::string("SELECT ") + kColumns +
                                             " FROM deliveries WHERE (:channel = '' OR channel = :channel) "
                                             "ORDER BY id DESC LIMIT :limit");
    select.bind(":channel", channel);
    select.bind(":limit", limit);
    std::vector<Delivery> out;
    while (select.executeStep()) out.push_back(read_row(select));
    return out;
  });
}

core::Result<int> DeliveryQueue::pending_count(const std::string& channel) {
  return guarded("read the queue", [&]() -> core::Result<int> {
    SQLite::Statement select(db_->sql(),
                             "SELECT count(*) FROM deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL "
                             "AND (:channel = '' OR channel = :channel)");
    select.bind(":channel", channel);
    select.executeStep();
    return select.getColumn(0).getInt();
  });
}

core::Result<void> DeliveryQueue::mark_sending(std::int64_t id, std::int64_t now_ms) {
  return guarded("update the queue", [&]() -> core::Result<void> {
    SQLite::Statement update(db_->sql(), "UPDATE deliveries SET sending_ms = :now, attempts = attempts + 1 WHERE id = :id");
    update.bind(":now", now_ms);
    update.bind(":id", id);
    update.exec();
    return {};
  });
}

core::Result<void> DeliveryQueue::mark_delivered(std::int64_t id, std::int64_t now_ms, std::optional<long> status) {
  return guarded("update the queue", [&]() -> core::Result<void> {
    SQLite::Statement update(db_->sql(),
                             "UPDATE deliveries SET delivered_ms = :now, sending_ms = NULL, status = :status, "
                             "last_error = NULL WHERE id = :id");
    update.bind(":now", now_ms);
    bind_status(update, ":status", status);
    update.bind(":id", id);
    update.exec();
    return {};
  });
}

core::Result<void> DeliveryQueue::mark_retry(std::int64_t id, std::int64_t next_attempt_ms, std::optional<long> status,
                                             const std::string& error) {
  return guarded("update the queue", [&]() -> core::Result<void> {
    SQLite::Statement update(db_->sql(),
                             "UPDATE deliveries SET next_attempt_ms = :next, sending_ms = NULL, status = :status, "
                             "last_error = :error WHERE id = :id");
    update.bind(":next", next_attempt_ms);
    bind_status(update, ":status", status);
    update.bind(":error", error);
    update.bind(":id", id);
    update.exec();
    return {};
  });
}

core::Result<void> DeliveryQueue::mark_failed(std::int64_t id, std::int64_t now_ms, std::optional<long> status,
                                              const std::string& error) {
  return guarded("update the queue", [&]() -> core::Result<void> {
    SQLite::Statement update(db_->sql(),
                             "UPDATE deliveries SET failed_ms = :now, sending_ms = NULL, status = :status, "
                             "last_error = :error WHERE id = :id");
    update.bind(":now", now_ms);
    bind_status(update, ":status", status);
    update.bind(":error", error);
    update.bind(":id", id);
    update.exec();
    return {};
  });
}

core::Result<int> DeliveryQueue::prune(std::int64_t before_ms) {
  return guarded("prune the queue", [&]() -> core::Result<int> {
    SQLite::Statement remove(db_->sql(),
                             "DELETE FROM deliveries WHERE (delivered_ms IS NOT NULL AND delivered_ms < :before) "
                             "OR (failed_ms IS NOT NULL AND failed_ms < :before)");
    remove.bind(":before", before_ms);
    return remove.exec();
  });
}

}  // namespace gpuwatch::store
