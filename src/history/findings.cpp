#include "history/findings.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "diagnose/diagnoser.hpp"
#include "diagnose/finding_groups.hpp"
#include "diagnose/input_fields.hpp"
#include "history/max_clock.hpp"
#include "history/snapshot_relay.hpp"
#include "history/process_identities.hpp"
#include "store/history_reader.hpp"
#include "store/history_reader_stream.hpp"
#include "store/imports.hpp"
#include "store/xid_log.hpp"

namespace gpuwatch::history {

core::Result<RecordedDiagnosis> diagnose_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                  std::optional<std::int64_t> until_ms,
                                                  const diagnose::GroupOptions& grouping) {
  diagnose::Diagnoser diagnoser;
  auto out = feed_recorded(db, since_ms, until_ms, diagnoser);
  if (!out) return out;
  out->findings = diagnoser.all_findings();
  // Problems, not samples (issue 23): one finding per problem over the samples' span.
  if (out->first_ms && out->last_ms) {
    const auto at = [](std::int64_t ms) { return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)); };
    out->findings = diagnose::group_findings(out->findings, {at(*out->first_ms), at(*out->last_ms)}, grouping);
  }
  return out;
}

core::Result<RecordedDiagnosis> feed_recorded(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                              std::optional<std::int64_t> until_ms, diagnose::Diagnoser& diagnoser) {
  RecordedDiagnosis out;
  // An open end reads to where the history starts or ends: no count of the rows needed.
  const std::int64_t from = since_ms.value_or(std::numeric_limits<std::int64_t>::min());
  const std::int64_t to = until_ms.value_or(std::numeric_limits<std::int64_t>::max());
  // Rows recorded before schema 5 have no clocks.max.sm: for them (only), the stand-in of
  // max_clock.hpp, computed the first time such a row comes (a second scan: not for new files).
  std::optional<std::map<unsigned, core::FieldReading>> highest;
  // One pass, one snapshot in memory at a time (store/history_reader_stream.hpp), reading only
  // the columns the engine looks at: the findings are those of read_history's snapshots.
  store::HistoryQuery query;
  query.since_ms = from;
  query.until_ms = to;
  query.processes = true;
  query.columns = diagnose::input_fields();
  query.host = true;  // the host row of each sample's time, for the host causes (issue 25)
  // The recorded Xids (schema 9), replayed in time order before the sample they precede.
  auto xids = store::read_xid_events(db, since_ms, until_ms);
  if (!xids) return xids.error();
  std::size_t next_xid = 0;
  // GPUs an imported log shows lost (schema 12): a snapshot with that GPU lost, in time order.
  auto lost = store::read_lost_gpus(db, since_ms, until_ms);
  if (!lost) return lost.error();
  std::size_t next_lost = 0;
  // The recorded command lines, so the engine groups the GPUs of one job by them (issue 23).
  auto identities = IdentityReplay::read(db, since_ms, until_ms);
  if (!identities) return identities.error();
  auto replay_lost_until = [&](std::int64_t at_ms) {
    for (; next_lost < lost->size() && (*lost)[next_lost].time_ms <= at_ms; ++next_lost) {
      core::Snapshot gone;
      gone.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds((*lost)[next_lost].time_ms));
      gone.devices.emplace_back();
      gone.devices.back().index = (*lost)[next_lost].gpu;
      gone.devices.back().state = core::DeviceState::Lost;
      diagnoser.observe(gone);
    }
  };
  // The history is read on a thread of its own while this one diagnoses (snapshot_relay.hpp):
  // over a long window the two halves overlap. Meanwhile only the reader uses the database.
  SnapshotRelay relay;
  std::optional<core::Error> failed;
  std::thread reader([&] {
    try {
      auto read = store::for_each_snapshot(db, query, [&](core::Snapshot& snapshot) {
        const bool lacks_max = std::any_of(snapshot.devices.begin(), snapshot.devices.end(), [](const auto& d) {
          return d.state == core::DeviceState::Ok && !d.get(core::FieldId::ClocksMaxSm).ok();
        });
        if (lacks_max) {
          if (!highest) highest = highest_sm_clock(db, from, to);
          fill_max_sm_clock(snapshot, *highest);
        }
        relay.push(snapshot);
      });
      if (!read) failed = read.error();
    } catch (const std::exception& e) {
      failed = core::Error{std::string("cannot read the history: ") + e.what(), 1};
    }
    relay.close();
  });
  while (core::Snapshot* next = relay.next()) {
    core::Snapshot& snapshot = *next;
    const auto at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.timestamp.time_since_epoch()).count();
    for (; next_xid < xids->size() && (*xids)[next_xid].time_ms <= at_ms; ++next_xid) {
      const auto& x = (*xids)[next_xid];
      diagnoser.observe_xid(x.gpu, x.xid, std::chrono::system_clock::time_point(std::chrono::milliseconds(x.time_ms)));
    }
    replay_lost_until(at_ms - 1);
    identities->replay_until(at_ms, diagnoser);
    diagnoser.observe(snapshot);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.timestamp.time_since_epoch()).count();
    if (!out.first_ms) out.first_ms = ms;
    out.last_ms = ms;
    ++out.snapshots;
  }
  reader.join();
  if (failed) return *failed;
  replay_lost_until(std::numeric_limits<std::int64_t>::max());
  return out;
}

}  // namespace gpuwatch::history
