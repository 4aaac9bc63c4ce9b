#include "history/owner_energy.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "jobs/device_stats.hpp"
#include "store/history_reader_stream.hpp"

namespace gpuwatch::history {
namespace {

std::vector<core::FieldId> owner_energy_columns() {
  std::vector<core::FieldId> columns{core::FieldId::EnergyTotal, core::FieldId::PowerDraw, core::FieldId::UtilizationGpu,
                                     core::FieldId::MemoryUsed};
  for (const auto& reason : jobs::throttle_reasons()) columns.push_back(reason.active);
  return columns;
}

bool same_gpu(const OwnerInterval& interval, const core::DeviceSnapshot& device) {
  const auto uuid = device.get(core::FieldId::Uuid).as_string();
  if (interval.gpu_uuid && uuid) return *interval.gpu_uuid == *uuid;
  return interval.gpu_index == device.index;
}

}  // namespace

std::vector<OwnerInterval> owner_intervals(const std::vector<store::OwnerSpanRow>& spans) {
  std::map<std::string, std::vector<OwnerInterval>> by_gpu;
  for (const auto& span : spans) {
    by_gpu[span.gpu_key].push_back({span.gpu_key, span.gpu_index, span.gpu_uuid, span.first_ms, span.last_ms});
  }
  std::vector<OwnerInterval> out;
  for (auto& [key, intervals] : by_gpu) {
    std::sort(intervals.begin(), intervals.end(), [](const auto& a, const auto& b) { return a.first_ms < b.first_ms; });
    for (const auto& interval : intervals) {
      if (!out.empty() && out.back().gpu_uuid == interval.gpu_uuid && out.back().gpu_index == interval.gpu_index &&
          interval.first_ms <= out.back().last_ms) {
        out.back().last_ms = std::max(out.back().last_ms, interval.last_ms);
      } else {
        out.push_back(interval);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.gpu_index, a.first_ms) < std::tie(b.gpu_index, b.first_ms);
  });
  return out;
}

std::size_t owners_at(const std::vector<store::OwnerSpanRow>& spans_on_gpu, const std::set<std::string>& own, std::int64_t ms) {
  std::set<std::string> others;
  for (const auto& span : spans_on_gpu) {
    if (span.first_ms > ms || span.last_ms < ms) continue;
    if (auto who = store::owner_identity(span); own.count(who) == 0) others.insert(std::move(who));
  }
  return 1 + others.size();
}

nlohmann::json shared_gpus_json(const std::vector<SharedGpu>& shared) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : shared) out.push_back({{"gpu", s.gpu_index}, {"seconds", s.seconds}, {"most_owners", s.most_owners}});
  return out;
}

std::string shared_gpus_text(const std::vector<SharedGpu>& shared) {
  std::string out;
  for (const auto& s : shared) {
    out += fmt::format("  GPU {} was shared with other owners for {:.0f} s (up to {} at once): its energy then is split "
                       "evenly between them (no per-process utilization is recorded)\n",
                       s.gpu_index, s.seconds, s.most_owners);
  }
  return out;
}

core::Result<OwnerEnergy> owner_energy(const store::HistoryDatabase& db, const store::OwnerFilter& filter,
                                       const store::OwnerWindow& owner, const std::vector<diagnose::Finding>& findings,
                                       const jobs::EnergyRates& rates, const jobs::HourOf& hour_of) {
  auto spans = store::read_owner_spans(db, filter, owner.first_ms, owner.last_ms);
  if (!spans) return spans.error();
  const std::vector<OwnerInterval> intervals = owner_intervals(*spans);
  // Who else held those GPUs meanwhile: a shared stretch counts its share (EnergyPoint::share).
  std::set<std::string> own;
  for (const auto& span : *spans) own.insert(store::owner_identity(span));
  std::vector<std::string> gpu_keys;
  for (const auto& interval : intervals) {
    if (std::find(gpu_keys.begin(), gpu_keys.end(), interval.gpu_key) == gpu_keys.end()) gpu_keys.push_back(interval.gpu_key);
  }
  auto all_spans = store::read_spans_on_gpus(db, gpu_keys, owner.first_ms, owner.last_ms);
  if (!all_spans) return all_spans.error();
  std::vector<std::vector<store::OwnerSpanRow>> spans_on(intervals.size());
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    for (const auto& span : *all_spans) {
      if (span.gpu_key == intervals[k].gpu_key && span.last_ms >= intervals[k].first_ms && span.first_ms <= intervals[k].last_ms)
        spans_on[k].push_back(span);
    }
  }
  std::map<unsigned, SharedGpu> shared;
  // One timeline per interval: the energy between two spans of the job on a GPU (another user's,
  // or nobody's) is not the job's.
  std::vector<jobs::EnergyTimeline> timelines(intervals.size());
  store::HistoryQuery query;
  query.since_ms = owner.first_ms;
  query.until_ms = owner.last_ms;
  query.columns = owner_energy_columns();
  double first_s = 0, last_s = 0;
  std::size_t samples = 0;
  auto read = store::for_each_snapshot(db, query, [&](core::Snapshot& snapshot) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.timestamp.time_since_epoch()).count();
    for (const auto& device : snapshot.devices) {
      for (std::size_t k = 0; k < intervals.size(); ++k) {
        if (ms < intervals[k].first_ms || ms > intervals[k].last_ms || !same_gpu(intervals[k], device)) continue;
        const bool first = timelines[k].points.empty();
        const auto previous = first ? snapshot.timestamp : timelines[k].points.back().at;
        jobs::add_point(timelines[k], device, snapshot.timestamp);
        if (const std::size_t n = owners_at(spans_on[k], own, ms); n > 1) {
          timelines[k].points.back().share = 1.0 / static_cast<double>(n);
          auto& s = shared[intervals[k].gpu_index];
          s.gpu_index = intervals[k].gpu_index;
          s.seconds += std::chrono::duration<double>(snapshot.timestamp - previous).count();
          s.most_owners = std::max(s.most_owners, n);
        }
      }
    }
    const double t = std::chrono::duration<double>(snapshot.timestamp.time_since_epoch()).count();
    if (samples++ == 0) first_s = t;
    last_s = t;
  });
  if (!read) return read.error();
  std::vector<jobs::GpuTimeline> gpus;
  for (std::size_t k = 0; k < intervals.size(); ++k) gpus.push_back({intervals[k].gpu_index, &timelines[k]});
  const double interval_s = samples > 1 ? (last_s - first_s) / static_cast<double>(samples - 1) : 1.0;
  jobs::EnergyReport report = jobs::energy_report(gpus, {}, findings, rates, hour_of, interval_s);
  // Several intervals of one GPU: one line per GPU.
  std::vector<jobs::GpuEnergy> merged;
  for (const auto& gpu : report.gpus) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.index == gpu.index; });
    if (same == merged.end()) {
      merged.push_back(gpu);
    } else {
      same->joules += gpu.joules;
      if (same->source != gpu.source) same->source = jobs::EnergySource::Estimated;  // any part estimated
    }
  }
  report.gpus = std::move(merged);
  OwnerEnergy out{std::move(report), {}};
  for (auto& [index, s] : shared) out.shared.push_back(s);
  return out;
}

}  // namespace gpuwatch::history
