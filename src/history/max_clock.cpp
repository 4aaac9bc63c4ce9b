#include "history/max_clock.hpp"

#include "store/history_reader.hpp"
#include "store/history_reader_stream.hpp"

namespace gpuwatch::history {

std::map<unsigned, core::FieldReading> highest_sm_clock(const store::HistoryDatabase& db, std::int64_t from_ms,
                                                        std::int64_t to_ms) {
  std::map<unsigned, core::FieldReading> out;
  store::HistoryQuery query;
  query.since_ms = from_ms;
  query.until_ms = to_ms;
  query.resolution = store::Resolution::Hour;
  query.statistic = store::Statistic::Max;
  query.columns = {core::FieldId::ClocksCurrentSm};  // only that column is read
  auto read = store::for_each_snapshot(db, query, [&out](const core::Snapshot& bucket) {
    for (const auto& device : bucket.devices) {
      const auto& clock = device.get(core::FieldId::ClocksCurrentSm);
      const auto value = clock.as_double();
      if (!clock.ok() || !value || *value <= 0) continue;
      const auto it = out.find(device.index);
      if (it == out.end() || *value > it->second.as_double().value_or(0)) out[device.index] = clock;
    }
  });
  if (!read) return {};  // no stand-in: the engine says what it can without it
  return out;
}

void fill_max_sm_clock(core::Snapshot& snapshot, const std::map<unsigned, core::FieldReading>& highest) {
  for (auto& device : snapshot.devices) {
    if (device.get(core::FieldId::ClocksMaxSm).ok() || device.get(core::FieldId::ClocksMaxGraphics).ok()) continue;
    if (const auto it = highest.find(device.index); it != highest.end()) device.get(core::FieldId::ClocksMaxSm) = it->second;
  }
}

}  // namespace gpuwatch::history
