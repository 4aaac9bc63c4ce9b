#pragma once
// Downsampled history for charts (serve's /api/v1/history over hours or days): the
// samples of a time range averaged into equal time buckets, per GPU, read from the raw
// samples AND the rollups of retention (store/history_retention.hpp), so a range that
// reaches past --retain-raw still has data. One ordered scan per table (no SQL sort);
// the answer has at most (range / bucket + 1) points per GPU.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/field.hpp"
#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct BucketQuery {
  std::int64_t since_ms = 0, until_ms = 0;  // Unix ms, inclusive
  std::optional<unsigned> gpu_index;        // NVML index at recording time; nullopt: every GPU
  std::int64_t bucket_ms = 1000;            // > 0; buckets start at multiples of it
  std::vector<core::FieldId> fields;        // the columns wanted; a field that is not recorded is all nullopt
  // 0: no bound. Otherwise the read is interrupted after this long and fails (a request
  // over a huge range cannot hold a thread for long).
  std::chrono::milliseconds time_budget{0};
  // When set and it turns true (serve is stopping), the read is interrupted at once and fails.
  const std::atomic<bool>* cancelled = nullptr;
};

struct GpuBuckets {
  unsigned index = 0;
  std::vector<std::int64_t> time_ms;                       // start of each bucket that has data, ascending
  std::vector<std::vector<std::optional<double>>> values;  // [field][bucket]: mean in base units; nullopt: no value
  // [field][bucket]: the least and greatest value in the bucket (a rollup row counts with its
  // own min and max; raw rows with the ones read, see below); nullopt where values is.
  std::vector<std::vector<std::optional<double>>> minimum, maximum;
};

struct BucketedHistory {
  std::int64_t bucket_ms = 0;
  // The coarsest table that contributed: 0 raw samples only, 60000 one-minute rollups,
  // 3600000 one-hour rollups (a rollup row counts wholly in the bucket of its start).
  std::int64_t coarsest_source_ms = 0;
  std::vector<GpuBuckets> gpus;  // by index; only GPUs with data in the range
};

// A bucket of at least MIN_MS giving at most MAX_POINTS buckets over SPAN_MS, rounded up
// to a round size (1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; then days).
std::int64_t choose_bucket_ms(std::int64_t span_ms, std::size_t max_points, std::int64_t min_ms);

// Means are weighted by samples (a rollup row weighs its sample count), over non-NULL
// values only; a bucket where a field never had a value gives nullopt, never 0. Of the raw
// samples, at most 120 per GPU per bucket are read, evenly spaced (one every bucket/120):
// buckets up to 2 minutes use every sample at 1 Hz; a 15-minute bucket, one every 7.5 s.
core::Result<BucketedHistory> read_bucketed_history(const HistoryDatabase& db, const BucketQuery& query);

}  // namespace gpuwatch::store
