#include "live/sample_history.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "host_signals/host_fields.hpp"

namespace gpuwatch::live {

HistoryRow make_history_row(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point timestamp) {
  HistoryRow row;
  row.gpu = device.index;
  row.timestamp_s = std::chrono::duration<double>(timestamp.time_since_epoch()).count();
  row.up = device.state == core::DeviceState::Ok;
  if (row.up && device.processes_status == core::FieldStatus::Ok) {
    row.processes = static_cast<std::uint32_t>(device.processes.size());
  }
  for (std::size_t i = 0; i < kHistoryFields.size(); ++i) {
    std::optional<double> v = row.up ? device.get(kHistoryFields[i]).as_double() : std::nullopt;
    row.values[i] = v ? *v : std::numeric_limits<double>::quiet_NaN();
  }
  return row;
}

HostRow make_host_row(const host_signals::HostSample& host) {
  HostRow row;
  row.timestamp_s = std::chrono::duration<double>(host.timestamp.time_since_epoch()).count();
  const auto& fields = host_signals::host_fields();
  row.values.reserve(fields.size());
  for (const auto& field : fields) row.values.push_back(field.get(host).value_or(std::numeric_limits<double>::quiet_NaN()));
  return row;
}

SampleHistory::SampleHistory(std::size_t capacity_per_gpu) : capacity_(std::max<std::size_t>(capacity_per_gpu, 1)) {}

std::uint64_t SampleHistory::push(HistoryRow row) {
  std::uint64_t seq;
  {
    std::lock_guard lock(mutex_);
    if (gpus_.size() <= row.gpu) gpus_.resize(row.gpu + 1);
    row.seq = seq = ++seq_;
    auto& ring = gpus_[row.gpu];
    ring.push_back(std::move(row));
    while (ring.size() > capacity_) ring.pop_front();
  }
  changed_.notify_all();
  return seq;
}

std::vector<HistoryRow> SampleHistory::rows_since(double since_s, std::optional<unsigned> gpu) const {
  std::lock_guard lock(mutex_);
  std::vector<HistoryRow> out;
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    if (gpu && *gpu != i) continue;
    const auto& ring = gpus_[i];
    // Rows are in time order per GPU: find the first one inside the window.
    auto first = std::partition_point(ring.begin(), ring.end(),
                                      [since_s](const HistoryRow& r) { return r.timestamp_s < since_s; });
    out.insert(out.end(), first, ring.end());
  }
  return out;
}

std::vector<HistoryRow> SampleHistory::rows_after(std::uint64_t after) const {
  std::lock_guard lock(mutex_);
  std::vector<HistoryRow> out;
  for (const auto& ring : gpus_) {
    auto first = std::partition_point(ring.begin(), ring.end(), [after](const HistoryRow& r) { return r.seq <= after; });
    out.insert(out.end(), first, ring.end());
  }
  std::sort(out.begin(), out.end(), [](const HistoryRow& a, const HistoryRow& b) { return a.seq < b.seq; });
  return out;
}

std::uint64_t SampleHistory::wait_after(std::uint64_t after, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  const std::uint64_t wakes = wakes_;
  changed_.wait_for(lock, timeout, [&] { return seq_ > after || wakes_ != wakes; });
  return seq_;
}

void SampleHistory::wake_all() const {
  {
    std::lock_guard lock(mutex_);
    ++wakes_;
  }
  changed_.notify_all();
}

void SampleHistory::push_host(HostRow row) {
  std::lock_guard lock(mutex_);
  host_.push_back(std::move(row));
  while (host_.size() > capacity_) host_.pop_front();
}

std::vector<HostRow> SampleHistory::host_rows_since(double since_s) const {
  std::lock_guard lock(mutex_);
  auto first = std::partition_point(host_.begin(), host_.end(), [since_s](const HostRow& r) { return r.timestamp_s < since_s; });
  return {first, host_.end()};
}

std::size_t SampleHistory::host_size() const {
  std::lock_guard lock(mutex_);
  return host_.size();
}

std::uint64_t SampleHistory::last_seq() const {
  std::lock_guard lock(mutex_);
  return seq_;
}

std::size_t SampleHistory::size(unsigned gpu) const {
  std::lock_guard lock(mutex_);
  return gpu < gpus_.size() ? gpus_[gpu].size() : 0;
}

}  // namespace gpuwatch::live
