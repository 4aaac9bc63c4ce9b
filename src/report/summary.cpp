#include "report/summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string_view>

#include "diagnose/finding_groups.hpp"  // evolution_text
#include "diagnose/kinds.hpp"           // each kind's summary sentence
#include "diagnose/problem_order.hpp"   // summary_problems: one sentence per problem, most urgent first
#include "report/render.hpp"          // report_duration_text

namespace gpuwatch::report {
namespace {

const store::GpuSummary* gpu_of(const store::HistoryReport& report, const diagnose::Finding& f) {
  if (f.gpus.empty()) return nullptr;
  for (const auto& s : report.gpus) {
    if (s.gpu.index == f.gpus.front()) return &s;
  }
  return nullptr;
}

std::optional<double> evidence(const diagnose::Finding& f, const char* key) {
  const auto it = f.evidence.find(key);
  return it == f.evidence.end() ? std::nullopt : std::optional<double>(it->second);
}

// "; its SM clock averaged 1,120 of 1,980 MHz" ("" when the clock was not recorded).
std::string clock_clause(const store::GpuSummary* s) {
  if (s == nullptr || !s->mean_sm_clock_mhz) return "";
  if (!s->max_sm_clock_mhz) return fmt::format("; its SM clock averaged {} MHz", grouped_number(*s->mean_sm_clock_mhz));
  return fmt::format("; its SM clock averaged {} of {} MHz", grouped_number(*s->mean_sm_clock_mhz),
                     grouped_number(*s->max_sm_clock_mhz));
}

// "21 % of the 5m 00s recorded": the range's share from the store, over the GPU's samples; else
// the finding's own, over its window ("52 % of its last 2m 00s"). The findings below give the
// window's figure, so the sentence names which time it counts.
std::string share_phrase(const std::optional<double>& range_share, const store::GpuSummary* s, const diagnose::Finding& f) {
  if (range_share && s && s->last_ms > s->first_ms)
    return fmt::format("{} of the {} recorded", share_text(*range_share),
                       report_duration_text(static_cast<double>(s->last_ms - s->first_ms) / 1000.0));
  if (range_share) return share_text(*range_share) + " of the time";
  const double share = evidence(f, "throttled_ratio").value_or(0.0);
  if (auto window = evidence(f, "window_s"); window && *window > 0)
    return fmt::format("{} of its last {}", share_text(share), report_duration_text(*window));
  return share_text(share) + " of the time";
}

const store::ProcessSummary* process_of(const store::HistoryReport& report, const diagnose::Finding& f) {
  if (!f.pid) return nullptr;
  const store::ProcessSummary* found = nullptr;
  for (const auto& p : report.processes) {
    if (p.pid != *f.pid) continue;
    if (!f.gpus.empty() && p.gpu_index && *p.gpu_index == f.gpus.front()) return &p;
    found = &p;
  }
  return found;
}

// How a leak went on: "; at that rate the GPU runs out of memory at 14:05:10" (still growing),
// " until 14:02:10, on course for out of memory at 14:05:10" (ended). A leak of several
// episodes (it restarted): the projection of its last one.
std::string leak_course(const diagnose::Finding& f, TimeStyle style) {
  auto oom_s = evidence(f, "time_to_oom_s");
  if (f.episodes.size() > 1) {
    const auto& last = f.episodes.back().evidence;
    const auto it = last.find("time_to_oom_s");
    oom_s = it == last.end() ? std::nullopt : std::optional<double>(it->second);
  }
  const std::int64_t end_ms = unix_ms(f.episodes.size() > 1 ? f.episodes.back().end : f.end);
  const std::optional<std::int64_t> oom_ms =
      oom_s && *oom_s >= 0 ? std::optional<std::int64_t>(end_ms + std::llround(*oom_s * 1000)) : std::nullopt;
  std::string text;
  if (f.active) {
    if (oom_ms) text += "; at that rate the GPU runs out of memory at " + time_of_day_text(*oom_ms, style);
  } else {
    text += " until " + time_of_day_text(end_ms, style);
    if (oom_ms) text += ", on course for out of memory at " + time_of_day_text(*oom_ms, style);
  }
  return text;
}

// "eval_server.py (PID 4060)": the recorded command line names the script, NVML's name only
// the interpreter.
std::string process_words(const diagnose::Finding& f, const store::HistoryReport& report) {
  const auto* p = process_of(report, f);
  const std::string who = p == nullptr ? "process" : p->command ? program_of(*p->command)
                                                   : !p->name.empty() ? program_of(p->name) : "process";
  return fmt::format("{} (PID {})", who, f.pid.value_or(0));
}

// The span of the range's samples (the grouped findings' shares are of it).
diagnose::TimeRange recorded_range(const store::HistoryReport& report) {
  std::int64_t first = report.gpus.front().first_ms, last = report.gpus.front().last_ms;
  for (const auto& s : report.gpus) {
    first = std::min(first, s.first_ms);
    last = std::max(last, s.last_ms);
  }
  const auto at = [](std::int64_t ms) { return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)); };
  return {at(first), at(last)};
}

// SENTENCE (ending with ".") with how a problem of several episodes evolved: "...; in 288
// episodes, every ~5 min since 17:24." WITH_SHARE false when the sentence has the store's share.
std::string with_evolution(std::string sentence, const diagnose::Finding& f, const store::HistoryReport& report,
                           TimeStyle style, bool with_share) {
  if (f.episodes.size() < 2 || report.gpus.empty()) return sentence;
  const auto evolution = diagnose::evolution_text(f, recorded_range(report), {style.utc}, with_share);
  if (evolution.empty()) return sentence;
  if (!sentence.empty() && sentence.back() == '.') sentence.pop_back();
  return sentence + "; " + evolution + ".";
}

std::vector<unsigned> healthy_gpus(const store::HistoryReport& report, const ReportFindings& findings) {
  const auto worst = worst_severity_by_gpu(findings.findings);
  std::vector<unsigned> out;
  for (const auto& s : report.gpus) {
    if (!s.gpu.index) continue;
    const auto it = worst.find(*s.gpu.index);
    if (it == worst.end() || it->second == diagnose::Severity::Info) out.push_back(*s.gpu.index);
  }
  return out;
}

// "99 % busy on average, 66 °C at most" over GPUS.
std::string figures_of(const store::HistoryReport& report, const std::vector<unsigned>& gpus) {
  double utilization = 0;
  int with_utilization = 0;
  std::optional<double> hottest;
  for (const auto& s : report.gpus) {
    if (!s.gpu.index || std::find(gpus.begin(), gpus.end(), *s.gpu.index) == gpus.end()) continue;
    if (s.mean_utilization_percent) {
      utilization += *s.mean_utilization_percent;
      ++with_utilization;
    }
    if (s.max_temperature_c) hottest = std::max(hottest.value_or(*s.max_temperature_c), *s.max_temperature_c);
  }
  std::vector<std::string> parts;
  if (with_utilization > 0) parts.push_back(fmt::format("{:.0f} % busy on average", utilization / with_utilization));
  if (hottest) parts.push_back(temperature_text(hottest) + " at most");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string node_sentence(const store::HistoryReport& report, TimeStyle style) {
  std::int64_t first = report.gpus.front().first_ms, last = report.gpus.front().last_ms;
  double utilization = 0, kwh = 0;
  int with_utilization = 0;
  bool any_energy = false;
  for (const auto& s : report.gpus) {
    first = std::min(first, s.first_ms);
    last = std::max(last, s.last_ms);
    if (s.mean_utilization_percent) {
      utilization += *s.mean_utilization_percent;
      ++with_utilization;
    }
    if (s.energy_kwh) {
      kwh += *s.energy_kwh;
      any_energy = true;
    }
  }
  std::string text = fmt::format("{} GPU{} over {} from {}", report.gpus.size(), report.gpus.size() == 1 ? "" : "s",
                                 report_duration_text(static_cast<double>(last - first) / 1000.0),
                                 time_text(first, style));
  std::vector<std::string> parts;
  if (with_utilization > 0) parts.push_back(fmt::format("{:.0f} % utilization on average", utilization / with_utilization));
  if (any_energy) parts.push_back(energy_text(kwh) + " used");
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : ": ") + parts[i];
  return text + ".";
}

}  // namespace

std::string gpus_phrase(const std::vector<unsigned>& gpus) {
  if (gpus.empty()) return "The node";
  if (gpus.size() == 1) return "GPU " + std::to_string(gpus.front());
  std::string out = "GPUs ";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (i > 0) out += i + 1 == gpus.size() ? " and " : ", ";
    out += std::to_string(gpus[i]);
  }
  return out;
}

std::string program_of(const std::string& command) {
  std::vector<std::string> words;
  std::size_t pos = 0;
  while (pos < command.size()) {
    const std::size_t start = command.find_first_not_of(' ', pos);
    if (start == std::string::npos) break;
    const std::size_t end = command.find(' ', start);
    words.push_back(command.substr(start, end == std::string::npos ? std::string::npos : end - start));
    pos = end == std::string::npos ? command.size() : end;
  }
  if (words.empty()) return "process";
  auto base = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
  const std::string program = base(words.front());
  // An interpreter runs the script named after its options ("python -u train.py").
  if (program.rfind("python", 0) == 0 || program == "node" || program == "bash" || program == "sh") {
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i].empty() || words[i][0] == '-') continue;
      if (words[i - 1] == "-m" && i > 1) return words[i];  // python -m module
      return base(words[i]);
    }
  }
  return program;
}

std::string growth_rate_text(double bytes_per_s) {
  const double per_min = bytes_per_s * 60.0;
  if (std::fabs(per_min) >= kGiB) return fmt::format("{:.1f} GiB/min", per_min / kGiB);
  return fmt::format("{:.0f} MiB/min", per_min / kMiB);
}

namespace {

std::optional<double> store_share_of(diagnose::StoreShare share, const store::GpuSummary* s) {
  if (s == nullptr) return std::nullopt;
  switch (share) {
    case diagnose::StoreShare::None: return std::nullopt;
    case diagnose::StoreShare::Thermal: return s->thermal_share;
    case diagnose::StoreShare::PowerCapped: return s->power_capped_share;
    case diagnose::StoreShare::HeldBack: return s->held_back_share;
  }
  return std::nullopt;
}

// The sentence for one episode of F: its kind's summary sentence (diagnose/kinds.def) with the
// named fields filled (kinds.def lists them). SHARE: the kind's StoreShare column.
std::string one_episode_sentence(std::string_view sentence, diagnose::StoreShare share, const diagnose::Finding& f,
                                 const store::HistoryReport& report, TimeStyle style) {
  const bool with_process = sentence.find("{process}") != std::string_view::npos;
  if (with_process && !f.pid) sentence = diagnose::kSaidBySummary;  // a process's sentence without one
  const store::GpuSummary* s = gpu_of(report, f);
  const double seconds = std::max(0.0, std::chrono::duration<double>(f.end - f.start).count());
  const auto count = evidence(f, "count").value_or(1);
  return fmt::format(
      fmt::runtime(sentence), fmt::arg("gpus", gpus_phrase(f.gpus)),
      fmt::arg("summary", f.summary.empty() ? f.kind : f.summary),
      fmt::arg("start", time_of_day_text(unix_ms(f.start), style)), fmt::arg("duration", report_duration_text(seconds)),
      fmt::arg("still", f.active ? ", still at the end" : ""),
      fmt::arg("impact", f.impact && *f.impact >= 0.005 ? fmt::format("; about {} of its time lost", share_text(*f.impact))
                                                        : std::string()),
      fmt::arg("share", share_phrase(store_share_of(share, s), s, f)), fmt::arg("clock", clock_clause(s)),
      fmt::arg("hottest", s && s->max_temperature_c ? ", at up to " + temperature_text(s->max_temperature_c) : std::string()),
      fmt::arg("times", count > 1 ? fmt::format(" ({:.0f} times)", count) : std::string()),
      fmt::arg("process", with_process ? process_words(f, report) : std::string()),
      fmt::arg("growth", growth_rate_text(evidence(f, "rate_bytes_per_s").value_or(0.0))),
      fmt::arg("course", with_process ? leak_course(f, style) : std::string()));
}

}  // namespace

std::string finding_sentence(const diagnose::Finding& f, const store::HistoryReport& report, TimeStyle style) {
  // The words of its kind (diagnose/kinds.def); a kind this build does not know: the generic ones.
  const auto kind = diagnose::kind_of_id(f.kind);
  const std::string_view sentence = kind ? diagnose::kind_info(*kind).summary_sentence : diagnose::kSaidBySummary;
  const auto share = kind ? diagnose::kind_info(*kind).store_share : diagnose::StoreShare::None;
  // A problem of several episodes (finding_groups.hpp): the kinds with their own sentence say
  // how it evolved after it; the others are said by the grouped summary, which says it all.
  if (f.episodes.size() > 1 && sentence == diagnose::kSaidBySummary) {
    std::string text = fmt::format("{}: {}", gpus_phrase(f.gpus), f.summary.empty() ? f.kind : f.summary);
    if (f.impact && *f.impact >= 0.005) text += fmt::format("; about {} of its time lost at worst", share_text(*f.impact));
    return text + ".";
  }
  // The evolution's share is left out when the sentence has the store's.
  return with_evolution(one_episode_sentence(sentence, share, f, report, style), f, report, style,
                        share == diagnose::StoreShare::None);
}

std::vector<SummaryLine> report_summary(const store::HistoryReport& report, const ReportFindings& findings,
                                        TimeStyle style) {
  std::vector<SummaryLine> lines;
  if (report.gpus.empty()) return lines;
  // One sentence per problem, most urgent first (an OOM on its way before 10 % throttling),
  // never the same sentence twice (issue 23).
  std::size_t more = 0;
  for (const auto& f : diagnose::summary_problems(findings.findings)) {
    std::string text = finding_sentence(f, report, style);
    const bool said = std::any_of(lines.begin(), lines.end(), [&](const SummaryLine& l) { return l.text == text; });
    if (said) continue;
    if (lines.size() == kSummaryFindings) {
      ++more;
      continue;
    }
    lines.push_back({f.severity, f.gpus, std::move(text)});
  }
  if (more > 0) {
    lines.push_back({std::nullopt, {}, fmt::format("{} more problem{} below.", more, more == 1 ? "" : "s")});
  }
  if (findings.diagnosed) {
    const auto healthy = healthy_gpus(report, findings);
    if (!healthy.empty()) {
      const bool all = healthy.size() == report.gpus.size();
      std::string who = all ? (healthy.size() == 1 ? "The GPU" : fmt::format("All {} GPUs", healthy.size()))
                            : gpus_phrase(healthy);
      const std::string figures = figures_of(report, healthy);
      lines.push_back({std::nullopt, healthy,
                       fmt::format("{} look{} healthy{}{}.", who, healthy.size() == 1 ? "s" : "",
                                   figures.empty() ? "" : ": ", figures)});
    }
  }
  lines.push_back({std::nullopt, {}, node_sentence(report, style)});
  return lines;
}

}  // namespace gpuwatch::report
