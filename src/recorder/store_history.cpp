#include "recorder/store_history.hpp"

#include <cmath>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>

#include "store/history_buckets.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::recorder {
namespace {

struct StoreConnection {
  std::string path;
  std::chrono::milliseconds budget;
  std::shared_ptr<const std::atomic<bool>> stopping;  // may be null
  // One read at a time on the connection: a request waits at most the budget for the one before.
  // (A flag under a plain mutex, not std::timed_mutex: its clocklock escapes ThreadSanitizer.)
  std::mutex mutex;
  std::condition_variable idle;
  bool busy = false;
  std::unique_ptr<store::HistoryDatabase> db;  // opened on first use, used by the holder of `busy`
};

// Holds the connection's `busy` flag for one read.
class ReadTurn {
 public:
  explicit ReadTurn(StoreConnection& connection) : connection_(connection) {
    std::unique_lock lock(connection_.mutex);
    held_ = connection_.idle.wait_for(lock, connection_.budget, [this] { return !connection_.busy; });
    if (held_) connection_.busy = true;
  }
  ~ReadTurn() {
    if (!held_) return;
    {
      std::lock_guard lock(connection_.mutex);
      connection_.busy = false;
    }
    connection_.idle.notify_one();
  }
  ReadTurn(const ReadTurn&) = delete;
  ReadTurn& operator=(const ReadTurn&) = delete;
  bool held() const { return held_; }

 private:
  StoreConnection& connection_;
  bool held_ = false;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The position of FIELD in live::kHistoryFields (every kBandFields field is one).
constexpr std::size_t history_column(core::FieldId field) {
  for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) {
    if (live::kHistoryFields[f] == field) return f;
  }
  return live::kHistoryFields.size();
}
static_assert([] {
  for (core::FieldId field : live::kBandFields) {
    if (history_column(field) == live::kHistoryFields.size()) return false;
  }
  return true;
}(), "every band field is a history field");

std::int64_t to_ms(double seconds) { return static_cast<std::int64_t>(std::llround(seconds * 1000.0)); }

std::vector<live::HistoryRow> rows_of(const store::BucketedHistory& history) {
  std::vector<live::HistoryRow> rows;
  for (const auto& gpu : history.gpus) {
    for (std::size_t b = 0; b < gpu.time_ms.size(); ++b) {
      live::HistoryRow row;
      row.gpu = gpu.index;
      row.timestamp_s = static_cast<double>(gpu.time_ms[b]) / 1000.0;
      row.up = true;  // the store has rows of answering GPUs only; a gap is a missing bucket
      for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) {
        const auto& value = gpu.values[f][b];
        row.values[f] = value ? *value : kNaN;
        // A bit mask averaged over a bucket means nothing: only a mask that held the whole
        // bucket (min == max) is one; else absent rather than made up.
        if (live::kHistoryFields[f] == core::FieldId::ClocksEventReasonsActive &&
            !(gpu.minimum[f][b] && gpu.maximum[f][b] && *gpu.minimum[f][b] == *gpu.maximum[f][b])) {
          row.values[f] = kNaN;
        }
      }
      auto band = std::make_shared<live::HistoryBand>();
      for (std::size_t k = 0; k < live::kBandFields.size(); ++k) {
        const std::size_t f = history_column(live::kBandFields[k]);
        band->min[k] = gpu.minimum[f][b].value_or(kNaN);
        band->max[k] = gpu.maximum[f][b].value_or(kNaN);
      }
      row.band = std::move(band);
      rows.push_back(row);
    }
  }
  return rows;
}

core::Result<exporter::StoredHistory> read(StoreConnection& connection, const exporter::StoredHistoryQuery& query) {
  ReadTurn turn(connection);
  if (!turn.held()) return core::make_error("the history database is busy with another request");
  if (!connection.db) {
    auto opened = store::HistoryDatabase::open(connection.path, store::OpenOptions{.read_only = true, .single_thread = true});
    if (!opened) return opened.error();
    connection.db = std::move(*opened);
  }
  store::BucketQuery bucket_query;
  bucket_query.since_ms = to_ms(query.since_s);
  bucket_query.until_ms = to_ms(query.until_s);
  bucket_query.gpu_index = query.gpu;
  bucket_query.bucket_ms = store::choose_bucket_ms(bucket_query.until_ms - bucket_query.since_ms, query.max_points,
                                                   std::max<std::int64_t>(to_ms(query.min_resolution_s), 1));
  bucket_query.fields.assign(live::kHistoryFields.begin(), live::kHistoryFields.end());
  bucket_query.time_budget = connection.budget;
  bucket_query.cancelled = connection.stopping.get();
  auto history = store::read_bucketed_history(*connection.db, bucket_query);
  if (!history) return history.error();
  exporter::StoredHistory out;
  out.rows = rows_of(*history);
  out.resolution_s = static_cast<double>(std::max(history->bucket_ms, history->coarsest_source_ms)) / 1000.0;
  return out;
}

}  // namespace

exporter::StoredHistoryReader make_store_history_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                                        std::shared_ptr<const std::atomic<bool>> stopping) {
  auto connection = std::make_shared<StoreConnection>();
  connection->path = std::move(db_path);
  connection->budget = time_budget;
  connection->stopping = std::move(stopping);
  return [connection](const exporter::StoredHistoryQuery& query) { return read(*connection, query); };
}

}  // namespace gpuwatch::recorder
