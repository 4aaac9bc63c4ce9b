#pragma once
// Internal to store/: the per-GPU accumulators `build_report` fills from each source of
// the history, oldest first (1-hour rollups, 1-minute rollups, raw samples), each read in
// primary-key order (time_ms, gpu_id) with no sort, and the helpers the scans share.
#include <SQLiteCpp/SQLiteCpp.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/history_database.hpp"
#include "store/rollup_counts.hpp"

namespace gpuwatch::store::report_detail {

enum Source : std::size_t { kRaw = 0, kMinute = 1, kHour = 2 };
constexpr std::size_t kSources = 3;
constexpr std::array<std::int64_t, kSources> kBucketMs = {0, 60'000, 3'600'000};
constexpr std::array<const char*, kSources> kTables = {"gpu_samples", "gpu_samples_1m", "gpu_samples_1h"};

// time_ms >= since AND time_ms <= until, as SQL and its bindings.
struct TimeFilter {
  std::optional<std::int64_t> since_ms, until_ms;
  std::string sql() const;
  void bind(SQLite::Statement& statement) const;
};

// Chart buckets: [first_ms + k * width_ms, first_ms + (k + 1) * width_ms); width 0: no chart.
struct ChartGrid {
  std::int64_t first_ms = 0, width_ms = 0;
};

struct ChartBucket {
  double utilization_sum = 0, power_sum = 0, sm_clock_sum = 0;  // weighted by samples
  std::int64_t utilization_count = 0, power_count = 0, sm_clock_count = 0;
  std::optional<double> memory_max, temperature_max;
  std::int64_t mask_count = 0, held_back_count = 0;  // samples with a clocks-event mask; of them, held back
};

// Which clocks-event bits mean the clocks were held back by a limit (not idle or a setting):
// thermal (sw/hw thermal slowdown), power (sw power cap, hw power brake), any (those and
// hw_slowdown). From rollups a union is not known: the largest reason's count stands for it
// (a lower bound).
inline constexpr std::uint64_t kThermalBits = 0x20 | 0x40;
inline constexpr std::uint64_t kPowerBits = 0x4 | 0x80;
inline constexpr std::uint64_t kHeldBackBits = kThermalBits | kPowerBits | 0x8;

// The energy counter over the range, oldest reading first: the sum of its increases,
// where a drop (a counter reset) adds nothing for that step.
struct CounterEnergy {
  double increase_mj = 0;
  std::optional<double> last_mj;
  std::int64_t readings = 0;
  // A run of readings from FIRST to LAST that rose by INCREASE inside it (one reading:
  // first = last, increase 0). The step from the previous run's last reading counts too.
  void add(double first_mj, double last_mj, double increase, std::int64_t run_readings);
};

struct Accumulator {
  Accumulator();
  std::int64_t samples = 0, rollup_samples = 0, first_ms = 0, last_ms = 0;
  double utilization_sum = 0;  // weighted by samples with a value
  std::int64_t utilization_count = 0, idle_count = 0, idle_known = 0;
  std::map<double, std::int64_t> utilization_histogram;  // value -> samples
  bool histogram_from_rollups = false;                    // then p95 is approximate
  std::optional<double> memory_used_max, memory_total_max, power_max, temperature_max;
  double power_sum = 0;
  std::int64_t power_count = 0;
  std::array<std::int64_t, kSources> mask_count{};
  std::int64_t thermal_count = 0, power_capped_count = 0, held_back_count = 0;  // samples, per k*Bits
  double sm_clock_sum = 0;
  std::int64_t sm_clock_count = 0;
  std::optional<double> sm_clock_max_hw;  // clocks.max.sm: the GPU's own maximum
  std::array<std::vector<std::int64_t>, kSources> reason_counts;  // per source, per throttle_reasons()
  std::array<double, kSources> power_mw_samples{};                // rollups: sum of avg mW x samples
  std::array<std::int64_t, kSources> power_rollup_count{};
  std::vector<std::int64_t> gaps;                                  // raw: ms between samples
  std::array<std::vector<double>, kSources> per_sample_ms;        // rollups: bucket ms / samples
  CounterEnergy counter;
  std::vector<std::pair<std::int64_t, double>> power_mw;  // raw: (time, mW)
  std::map<std::int64_t, ChartBucket> buckets;            // by index while scanning
  std::int64_t current_bucket_index = -1;
  ChartBucket* current_bucket = nullptr;

  // Counts SAMPLES at TIME_MS (times arrive in order); the chart bucket, or nullptr.
  ChartBucket* add_samples(std::int64_t time_ms, std::int64_t count, const ChartGrid& grid);
};

void keep_max(std::optional<double>& current, double value);

// Reads the rows of a rollup SOURCE (kMinute or kHour) that FILTER selects into OUT.
void scan_rollups(const HistoryDatabase& db, Source source, const TimeFilter& filter, const ChartGrid& grid,
                  std::map<std::int64_t, Accumulator>& out);

}  // namespace gpuwatch::store::report_detail
