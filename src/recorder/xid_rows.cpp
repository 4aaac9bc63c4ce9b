#include "recorder/xid_rows.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace gpuwatch::recorder {
namespace {

std::optional<std::string> uuid_of(const core::Snapshot& snapshot, unsigned gpu) {
  for (const auto& device : snapshot.devices) {
    if (device.index == gpu) return device.get(core::FieldId::Uuid).as_string();
  }
  return std::nullopt;
}

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

std::vector<store::XidEventRow> xid_rows(const std::vector<backend::DeviceEvent>& events, const core::Snapshot& snapshot) {
  std::vector<store::XidEventRow> rows;
  for (const auto& e : events) rows.push_back({unix_ms(snapshot.timestamp), e.gpu, uuid_of(snapshot, e.gpu), e.code});
  return rows;
}

std::vector<store::XidEventRow> XidCountDiff::new_events(const std::vector<live::XidCount>& counts,
                                                         const core::Snapshot& snapshot) {
  std::vector<store::XidEventRow> rows;
  for (const auto& c : counts) {
    std::uint64_t& written = seen_[{c.gpu, c.xid}];
    if (c.count <= written) continue;
    const auto time_ms = static_cast<std::int64_t>(std::llround(c.last_seen_unix_s * 1000.0));
    for (std::uint64_t i = written; i < c.count; ++i) rows.push_back({time_ms, c.gpu, uuid_of(snapshot, c.gpu), c.xid});
    written = c.count;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  return rows;
}

}  // namespace gpuwatch::recorder
