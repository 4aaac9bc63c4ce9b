#pragma once
// `gpuwatch report`: a per-GPU summary of a time range of the history, computed in ONE
// scan of gpu_samples in primary-key order (time_ms, gpu_id), which SQLite streams with
// no sort; a GROUP BY gpu_id would sort every row first (measured: 2-3x slower).
// Absent data stays absent (nullopt), never 0.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::store {

// A sample counts as idle when utilization.gpu is below this (percent).
constexpr double kIdleBelowPercent = 5.0;

// The clocks_event_reasons bits (NVML nvmlClocksEventReason*), with nvidia-smi's names.
struct ThrottleReason {
  std::uint64_t bit;
  const char* name;  // e.g. "sw_power_cap"
};
const std::vector<ThrottleReason>& throttle_reasons();

struct ThrottleTime {
  std::string reason;
  std::int64_t samples = 0;
  double seconds = 0;  // samples x the GPU's sampling interval
};

// One chart bucket (averages / maxima over the samples in it); nullopt: no value.
struct ChartPoint {
  std::int64_t time_ms = 0;  // bucket start
  std::optional<double> utilization_percent, memory_used_bytes, power_w, temperature_c;
};

struct GpuSummary {
  GpuRecord gpu;
  std::int64_t samples = 0;
  std::int64_t first_ms = 0, last_ms = 0;
  std::optional<double> sample_interval_s;  // median gap between samples
  std::optional<double> mean_utilization_percent, p95_utilization_percent;
  std::optional<double> idle_share;  // of the samples with a utilization value, 0..1
  std::optional<std::uint64_t> peak_memory_used_bytes, memory_total_bytes;
  std::optional<double> mean_power_w, max_power_w;
  std::optional<double> energy_kwh;
  std::string energy_source;  // "counter", "power" or "" (no energy)
  std::optional<double> max_temperature_c;
  std::vector<ThrottleTime> throttling;  // every reason seen at least once; empty if mask absent
  bool throttle_mask_recorded = false;
  std::vector<ChartPoint> chart;
};

struct ReportQuery {
  std::optional<std::int64_t> since_ms, until_ms;  // inclusive, Unix ms
  std::size_t chart_points = 600;                  // at most this many buckets per GPU (0: no chart)
};

struct HistoryReport {
  std::optional<std::int64_t> since_ms, until_ms;
  std::vector<GpuSummary> gpus;              // GPUs with samples in the range, by index
  std::vector<ProcessSummary> processes;
};

core::Result<HistoryReport> build_report(const HistoryDatabase& db, const ReportQuery& query);

// Energy in joules from a cumulative counter (mJ samples, in time order): the sum of
// the increases; a drop (counter reset, driver reload) adds nothing for that step.
double energy_from_counter_mj(const std::vector<double>& counter_mj);

}  // namespace gpuwatch::store
