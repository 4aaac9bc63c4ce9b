#include "jobs/job_summary.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

#include "core/sink_text.hpp"
#include "diagnose/finding_json.hpp"
#include "diagnose/finding_text.hpp"
#include "jobs/limiting_resource.hpp"

namespace gpuwatch::jobs {
namespace {

double unix_s(TimePoint t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

template <typename T>
nlohmann::json optional_uint(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

DeviceStats combined_utilization(const std::vector<DeviceStats>& gpus) {
  DeviceStats all;
  for (const auto& g : gpus) {
    for (std::size_t p = 0; p < g.util_histogram.size(); ++p) all.util_histogram[p] += g.util_histogram[p];
    all.util_samples += g.util_samples;
  }
  return all;
}

std::optional<double> mean_of(double sum, std::size_t n) {
  return n == 0 ? std::nullopt : std::optional<double>(sum / static_cast<double>(n));
}

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024)); }

std::string percent(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.0f} %", *ratio * 100) : std::string("n/a");
}

}  // namespace

JobSummary summarize(JobInfo info, const std::vector<DeviceStats>& devices, const std::vector<XidSeen>& xids,
                     const std::vector<diagnose::Finding>& findings, StepsSummary steps) {
  JobSummary s;
  s.info = std::move(info);
  s.wall_s = std::max(0.0, std::chrono::duration<double>(s.info.end - s.info.start).count());
  std::set<unsigned> used;
  std::size_t units = 0;
  std::set<std::string> sources;
  for (const auto& d : devices) {
    if (!d.used) continue;
    s.gpus.push_back(d);
    used.insert(d.index);
    units += d.mig.empty() ? 1 : d.mig.size();
    if (auto e = energy_of(d)) {
      s.energy_j = s.energy_j.value_or(0) + e->joules;
      sources.insert(e->source);
    }
  }
  s.gpu_hours = s.wall_s * static_cast<double>(units) / 3600.0;
  if (sources.size() == 1) s.energy_source = *sources.begin();
  else if (sources.size() > 1) s.energy_source = "mixed";
  for (const auto& x : xids) {
    if (used.count(x.gpu) != 0 && x.count > 0) s.xids.push_back(x);
  }
  for (const auto& f : findings) {
    if (std::any_of(f.gpus.begin(), f.gpus.end(), [&](unsigned g) { return used.count(g) != 0; })) s.findings.push_back(f);
  }
  s.steps = steps;
  return s;
}

void merge_findings(std::vector<diagnose::Finding>& seen, const std::vector<diagnose::Finding>& active_now) {
  for (const auto& f : active_now) {
    auto same = std::find_if(seen.begin(), seen.end(), [&](const diagnose::Finding& s) {
      return s.kind == f.kind && s.gpus == f.gpus && s.pid == f.pid && s.start == f.start;
    });
    if (same != seen.end()) *same = f;
    else seen.push_back(f);
  }
}

std::string duration_words(double seconds) {
  auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  long long h = total / 3600, m = total % 3600 / 60, s = total % 60;
  if (h > 0) return fmt::format("{} h {} m", h, m);
  if (m > 0) return fmt::format("{} m {:02} s", m, s);
  return fmt::format("{} s", s);
}

std::string end_message(const JobInfo& info) {
  const double wall = std::chrono::duration<double>(info.end - info.start).count();
  if (info.exit_status == 0) return fmt::format("job {} finished after {}", info.name, duration_words(wall));
  std::string why = info.signal ? fmt::format("signal {}", *info.signal) : fmt::format("exit {}", info.exit_status);
  return fmt::format("job {} failed ({}) after {}", info.name, why, duration_words(wall));
}

nlohmann::json gpus_json(const JobSummary& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : s.gpus) {
    nlohmann::json mig = nlohmann::json::array();
    for (const auto& [gi, m] : g.mig) mig.push_back(m.uuid);
    out.push_back({{"index", g.index}, {"uuid", g.uuid}, {"mig_uuids", mig}});
  }
  return out;
}

nlohmann::json summary_json(const JobSummary& s) {
  nlohmann::json j;
  j["id"] = s.info.id ? nlohmann::json(*s.info.id) : nlohmann::json();
  j["name"] = s.info.name;
  j["command"] = s.info.command;
  j["user"] = s.info.user;
  j["host"] = s.info.host;
  j["start_unix_s"] = unix_s(s.info.start);
  j["end_unix_s"] = unix_s(s.info.end);
  j["wall_s"] = s.wall_s;
  j["exit_status"] = s.info.exit_status;
  j["signal"] = s.info.signal ? nlohmann::json(*s.info.signal) : nlohmann::json();
  j["uses_gpu"] = !s.gpus.empty();
  j["gpu_hours"] = s.gpu_hours;
  j["energy_wh"] = s.energy_j ? nlohmann::json(*s.energy_j / 3600.0) : nlohmann::json();
  j["energy_source"] = s.energy_source.empty() ? nlohmann::json() : nlohmann::json(s.energy_source);
  DeviceStats all = combined_utilization(s.gpus);
  j["utilization_mean_ratio"] = optional_number(utilization_mean(all));
  j["utilization_p95_ratio"] = optional_number(utilization_percentile(all, 0.95));
  nlohmann::json gpus = nlohmann::json::array();
  std::map<std::string, double> throttle_total;
  for (const auto& g : s.gpus) {
    nlohmann::json mig = nlohmann::json::array();
    for (const auto& [gi, m] : g.mig)
      mig.push_back({{"uuid", m.uuid}, {"profile", m.profile}, {"gpu_instance_id", gi},
                     {"memory_peak_bytes", optional_uint(m.memory_peak_bytes)},
                     {"memory_total_bytes", optional_uint(m.memory_total_bytes)}});
    auto energy = energy_of(g);
    auto throttle = throttle_seconds(g);
    for (const auto& [reason, sec] : throttle) throttle_total[reason] += sec;
    gpus.push_back({{"index", g.index},
                    {"uuid", g.uuid},
                    {"name", g.name},
                    {"pids", g.pids},
                    {"mig", mig},
                    {"samples", g.samples},
                    {"utilization_mean_ratio", optional_number(utilization_mean(g))},
                    {"utilization_p95_ratio", optional_number(utilization_percentile(g, 0.95))},
                    {"sm_active_mean_ratio", optional_number(mean_of(g.sm_active_sum, g.sm_active_samples))},
                    {"tensor_active_mean_ratio", optional_number(mean_of(g.tensor_active_sum, g.tensor_active_samples))},
                    {"memory_peak_bytes", optional_uint(g.memory_peak_bytes)},
                    {"memory_total_bytes", optional_uint(g.memory_total_bytes)},
                    {"energy_wh", energy ? nlohmann::json(energy->joules / 3600.0) : nlohmann::json()},
                    {"energy_source", energy ? nlohmann::json(energy->source) : nlohmann::json()},
                    {"throttle_s", throttle}});
  }
  j["gpus"] = gpus;
  j["throttle_s"] = throttle_total;
  nlohmann::json xids = nlohmann::json::array();
  for (const auto& x : s.xids) xids.push_back({{"gpu", x.gpu}, {"xid", x.xid}, {"count", x.count}});
  j["xids"] = xids;
  j["steps"] = {{"count", s.steps.count},
                {"malformed", s.steps.malformed},
                {"data_wait_ratio", optional_number(s.steps.data_wait_ratio)}};
  j["findings"] = diagnose::findings_json(s.findings)["findings"];
  // Which resource limited the job (issue 25): null when no finding names one.
  j["limited_by"] = limiting_resource_json(s.findings);
  j["energy"] = energy_report_json(s.energy);
  return j;
}

namespace {

// The steps the job wrote (its steps file) and every finding, worst first: its kind, its GPUs,
// the finding's sentence and what to try. Measured findings (the steps file's data wait) come
// with or without GPUs.
std::string steps_and_findings_text(const JobSummary& s) {
  std::string out;
  if (s.steps.count > 0 || s.steps.malformed > 0) {
    out += fmt::format("  steps: {} recorded by the job", s.steps.count);
    if (s.steps.data_wait_ratio) out += fmt::format(", {} of step time waiting for data", percent(s.steps.data_wait_ratio));
    if (s.steps.malformed > 0) out += fmt::format(" ({} malformed lines skipped)", s.steps.malformed);
    out += "\n";
  }
  if (s.findings.empty()) return out + "  findings: none\n";
  // Which resource limited the job, from the findings' causes (issue 25).
  if (auto limit = limiting_resource_text(s.findings); !limit.empty()) out += "  limited by: " + limit + "\n";
  out += "  findings:\n";
  for (const auto& f : diagnose::worst_first(s.findings)) {
    const std::string where = f.gpus.empty() ? "no GPU"
                              : f.gpus.size() == 1 ? fmt::format("GPU {}", f.gpus.front())
                                                   : fmt::format("GPUs {}", fmt::join(f.gpus, ","));
    out += fmt::format("    {} {} ({}): {}\n", diagnose::to_string(f.severity), core::terminal_text(f.kind), where,
                       core::terminal_text(f.summary.empty() ? f.detail : f.summary));
    for (const auto& a : f.advice) out += fmt::format("      try: {}\n", core::terminal_text(a));
  }
  return out;
}

}  // namespace

std::string summary_text(const JobSummary& s) {
  std::string out = "gpuwatch run: " + core::terminal_text(end_message(s.info)) + "\n";
  if (s.info.id) out += fmt::format("  job id {}: gpuwatch report --job {}\n", *s.info.id, *s.info.id);
  if (s.gpus.empty()) {
    out += "  this job used no GPU: none of its processes appeared in NVML's process lists\n";
    return out + steps_and_findings_text(s);
  }
  out += fmt::format("  wall time {}, {} GPU(s), {:.3f} GPU-hours\n", duration_words(s.wall_s), s.gpus.size(), s.gpu_hours);
  if (s.energy_j) {
    out += fmt::format("  energy {:.2f} Wh ({})\n", *s.energy_j / 3600.0,
                       s.energy_source == "counter" ? "from the GPUs' energy counters"
                       : s.energy_source == "estimated" ? "estimated: integrated from power samples"
                                                              : "counters on some GPUs, integrated power on others");
  } else {
    out += "  energy n/a (no GPU reported an energy counter or power)\n";
  }
  out += energy_report_text(s.energy);
  DeviceStats all = combined_utilization(s.gpus);
  out += fmt::format("  utilization mean {}, p95 {}\n", percent(utilization_mean(all)), percent(utilization_percentile(all, 0.95)));
  for (const auto& g : s.gpus) {
    out += fmt::format("  GPU {} {}: util mean {} p95 {}", g.index, core::terminal_text(g.name), percent(utilization_mean(g)),
                       percent(utilization_percentile(g, 0.95)));
    if (auto sm = mean_of(g.sm_active_sum, g.sm_active_samples)) out += fmt::format(", SM active {}", percent(sm));
    if (auto tensor = mean_of(g.tensor_active_sum, g.tensor_active_samples))
      out += fmt::format(", tensor active {}", percent(tensor));
    if (g.memory_peak_bytes)
      out += fmt::format(", peak memory {}{}", gib(*g.memory_peak_bytes),
                         g.memory_total_bytes ? " of " + gib(*g.memory_total_bytes) : "");
    out += "\n";
    for (const auto& [gi, m] : g.mig) {
      out += fmt::format("    MIG {} {}", core::terminal_text(m.profile), core::terminal_text(m.uuid));
      if (m.memory_peak_bytes)
        out += fmt::format(": peak memory {}{}", gib(*m.memory_peak_bytes),
                           m.memory_total_bytes ? " of " + gib(*m.memory_total_bytes) : "");
      out += "\n";
    }
    auto throttle = throttle_seconds(g);
    if (!throttle.empty()) {
      out += "    throttled:";
      for (const auto& [reason, sec] : throttle) out += fmt::format(" {} {}", reason, duration_words(sec));
      out += "\n";
    }
  }
  if (!s.xids.empty()) {
    out += "  Xids:";
    for (const auto& x : s.xids) out += fmt::format(" GPU {} Xid {} x{}", x.gpu, x.xid, x.count);
    out += "\n";
  }
  return out + steps_and_findings_text(s);
}

}  // namespace gpuwatch::jobs
