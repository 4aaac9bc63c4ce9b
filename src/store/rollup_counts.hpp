#pragma once
// What the rollup tables (gpu_samples_1m, gpu_samples_1h) keep beside min/avg/max so
// that `report` computes over rollups what it computes over raw samples (schema v3):
//  * counts: samples with a utilization value, idle samples (utilization below
//    kIdleBelowPercent), samples with a power value, samples with a clocks-event mask,
//    and per throttle reason the samples with its bit set. Mean utilization and power
//    are then weighted by the samples that had a value; idle share and throttle time
//    are exact.
//  * the energy counter: first and last reading of the bucket and the sum of its
//    increases inside the bucket (a drop, i.e. a counter reset, adds nothing), so the
//    energy of any run of buckets is exact: increases + the steps between buckets.
// Each count is an aggregate over raw rows (retention: raw -> 1 minute) and is summed
// when 1-minute rows become 1-hour rows; NULL means "not known" (an older database
// whose rollups were written before v3, where the count cannot be derived).
#include <cstdint>
#include <string>
#include <vector>

namespace gpuwatch::store {

// A sample counts as idle when utilization.gpu is below this (percent).
constexpr double kIdleBelowPercent = 5.0;

// The clocks_event_reasons bits (NVML's clock event reasons), with nvidia-smi's names.
struct ThrottleReason {
  std::uint64_t bit;
  const char* name;  // e.g. "sw_power_cap"
};
const std::vector<ThrottleReason>& throttle_reasons();

struct RollupCount {
  std::string name;      // INTEGER column of the rollup tables
  std::string from_raw;  // aggregate over gpu_samples rows of one bucket
  std::string backfill;  // v3 migration: from a v2 rollup row's min/avg/max (NULL: unknown)
};

// utilization_gpu_percent_samples, utilization_gpu_idle_samples, power_draw_mw_samples,
// clocks_event_reasons_active_samples, then throttle_<reason>_samples per throttle_reasons().
const std::vector<RollupCount>& rollup_counts();
std::string throttle_samples_column(const ThrottleReason& reason);

// The energy counter columns (REAL, mJ as energy_total_mj).
inline constexpr const char* kEnergyFirstColumn = "energy_total_mj_first";
inline constexpr const char* kEnergyLastColumn = "energy_total_mj_last";
inline constexpr const char* kEnergyIncreaseColumn = "energy_total_mj_increase";

// Migration 3: adds the columns above to both rollup tables and backfills existing rows
// where a v2 row allows it (counts from `samples` when every value in the bucket was
// absent or present alike; energy as max - min, i.e. assuming no reset inside a bucket).
std::string schema_v3_sql();

}  // namespace gpuwatch::store
