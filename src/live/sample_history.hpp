#pragma once
// The exporter's recent history, for /api/v1/history and /api/v1/events: per GPU a
// bounded ring buffer of compact rows (when, whether the GPU answered, how many
// processes, and the chart fields as doubles with NaN for absent). Thread-safe: the
// collector's sampling threads push, HTTP workers read. Every push gets a sequence
// number, increasing across all GPUs, so a server-sent-events stream can wait for
// "rows after the last one I sent" without touching the collector.
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/field.hpp"
#include "core/snapshot.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::live {

// The fields kept in the history, in column order (what the dashboard charts).
// The last four (issue 12): the enforced power limit (what the store records, so the limit
// line reads the same at every range), the throttle reasons (a bit mask: never averaged, so
// the store's answers have it only where it held a whole bucket), and the SM clock and
// temperature limits the dashboard
// draws the clock and temperature against.
inline constexpr std::array<core::FieldId, 21> kHistoryFields = {
    core::FieldId::UtilizationGpu,        core::FieldId::UtilizationMemory,
    core::FieldId::UtilizationEncoder,    core::FieldId::UtilizationDecoder,
    core::FieldId::MemoryUsed,            core::FieldId::MemoryTotal,
    core::FieldId::TemperatureGpu,        core::FieldId::TemperatureMemory,
    core::FieldId::PowerDraw,             core::FieldId::PowerLimit,
    core::FieldId::EnergyTotal,           core::FieldId::FanSpeed,
    core::FieldId::ClocksCurrentGraphics, core::FieldId::ClocksCurrentSm,
    core::FieldId::ClocksCurrentMemory,   core::FieldId::PcieTxThroughput,
    core::FieldId::PcieRxThroughput,      core::FieldId::EnforcedPowerLimit,
    core::FieldId::ClocksEventReasonsActive, core::FieldId::ClocksMaxSm,
    core::FieldId::TemperatureGpuSlowdown,
};

// The fields whose spread within a bucket the store's answers carry (HistoryRow::band): the
// dashboard's min/max band over long ranges.
inline constexpr std::array<core::FieldId, 5> kBandFields = {
    core::FieldId::UtilizationGpu, core::FieldId::MemoryUsed, core::FieldId::TemperatureGpu,
    core::FieldId::PowerDraw,      core::FieldId::ClocksCurrentSm,
};

// The least and greatest value of each kBandFields field within one bucket (NaN: absent).
struct HistoryBand {
  std::array<double, kBandFields.size()> min{}, max{};
};

struct HistoryRow {
  std::uint64_t seq = 0;     // assigned by SampleHistory::push (1, 2, ...)
  unsigned gpu = 0;          // NVML index
  double timestamp_s = 0;    // Unix time when the sample started
  bool up = false;           // the GPU answered (state ok); false: lost or inaccessible
  std::optional<std::uint32_t> processes;  // processes on the GPU; nullopt when not readable
  std::array<double, kHistoryFields.size()> values{};  // parallel to kHistoryFields; NaN: absent
  // Rows read from the store (averaged buckets): the spread in each; null for live samples.
  std::shared_ptr<const HistoryBand> band;
};

// The row of one finished sample of one GPU.
HistoryRow make_history_row(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point timestamp);

// issue 25: one host sample (one per collector tick, /api/v1/host): its scalar values, in the order
// of host_signals::host_fields() (the one table), NaN for absent.
struct HostRow {
  double timestamp_s = 0;  // Unix time of the reading
  std::vector<double> values;
};

HostRow make_host_row(const host_signals::HostSample& host);

class SampleHistory {
 public:
  // Keeps the latest CAPACITY rows of each GPU (at least 1).
  explicit SampleHistory(std::size_t capacity_per_gpu);

  // Assigns the next sequence number, appends, drops that GPU's oldest row beyond the
  // capacity, and wakes wait_after. Returns the sequence number.
  std::uint64_t push(HistoryRow row);

  // Rows of GPU (every GPU when nullopt) whose timestamp_s >= SINCE_S, oldest first per GPU,
  // GPUs in index order.
  std::vector<HistoryRow> rows_since(double since_s, std::optional<unsigned> gpu = std::nullopt) const;
  // Rows with seq > AFTER still in the buffers, in seq order.
  std::vector<HistoryRow> rows_after(std::uint64_t after) const;
  // Waits until a row with seq > AFTER exists, TIMEOUT passes, or wake_all(); returns last_seq().
  std::uint64_t wait_after(std::uint64_t after, std::chrono::milliseconds timeout) const;
  // Wakes every wait_after (used on shutdown).
  void wake_all() const;

  // The host's samples: a ring of their own (capacity() rows, like one GPU's), no sequence
  // numbers (the event stream carries GPU rows only). Oldest first.
  void push_host(HostRow row);
  std::vector<HostRow> host_rows_since(double since_s) const;
  std::size_t host_size() const;

  std::uint64_t last_seq() const;
  std::size_t capacity() const { return capacity_; }
  std::size_t size(unsigned gpu) const;  // rows held for GPU

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::size_t capacity_;
  std::vector<std::deque<HistoryRow>> gpus_;  // gpus_[i]: GPU i, oldest first
  std::deque<HostRow> host_;                    // oldest first
  std::uint64_t seq_ = 0;
  mutable std::uint64_t wakes_ = 0;
};

}  // namespace gpuwatch::live
