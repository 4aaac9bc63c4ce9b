#include "diagnose/finding_groups.hpp"

#include "diagnose/kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <tuple>

namespace gpuwatch::diagnose {
namespace finding_groups_detail {  // unity builds: names of this file only

using Clock = std::chrono::system_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The words for a kind in a sentence ("thermal throttling in 288 episodes ...").
std::string kind_phrase(const std::string& kind) {
  if (auto known = kind_of_id(kind)) return std::string(diagnose::kind_phrase(*known));
  std::string out = kind;  // a kind from a newer build's history: its id in words
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string duration_words(double seconds) {
  seconds = std::max(0.0, seconds);
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 90 * 60) return fmt::format("{:.0f} min", seconds / 60);
  if (seconds < 48 * 3600) {
    const double hours = seconds / 3600;
    return hours < 10 && std::fabs(hours - std::round(hours)) >= 0.05 ? fmt::format("{:.1f} h", hours)
                                                                       : fmt::format("{:.0f} h", hours);
  }
  return fmt::format("{:.0f} days", seconds / 86400);
}

// An episode's length to the second: "37 s", "2m 37s", "1h 05m".
std::string length_words(double seconds) {
  const auto whole = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (whole < 60) return fmt::format("{} s", whole);
  if (whole < 3600) return fmt::format("{}m {:02}s", whole / 60, whole % 60);
  return fmt::format("{}h {:02}m", whole / 3600, (whole % 3600) / 60);
}

std::string growth_words(double bytes_per_s) {
  const double per_min = bytes_per_s * 60.0;
  constexpr double kMiB = 1024.0 * 1024.0;
  if (std::fabs(per_min) >= 1024 * kMiB) return fmt::format("{:.1f} GiB/min", per_min / (1024 * kMiB));
  return fmt::format("{:.0f} MiB/min", per_min / kMiB);
}

std::string percent_words(double ratio) {
  if (ratio > 0 && ratio < 0.005) return "< 1 %";
  return fmt::format("{:.0f} %", ratio * 100);
}

// The numbers that make an episode worse than another, and how a person says the worst of them.
struct Peak {
  const char* key;
  bool higher_is_worse;
  std::string (*words)(double);
};
const std::vector<Peak>& peaks() {
  static const std::vector<Peak> kPeaks = {
      {"max_temperature_c", true, [](double v) { return fmt::format("up to {:.0f} °C", v); }},
      {"rate_bytes_per_s", true, [](double v) { return "growing up to " + growth_words(v); }},
      {"sm_clock_loss_ratio", true, [](double v) { return "SM clock down up to " + percent_words(v); }},
      {"memory_used_ratio", true, [](double v) { return "up to " + percent_words(v) + " full"; }},
      {"throttled_ratio", true, [](double v) { return "up to " + percent_words(v) + " of the time"; }},
      {"time_to_oom_s", false, [](double v) { return "out of memory in ~" + duration_words(v) + " at worst"; }},
  };
  return kPeaks;
}

std::optional<double> value_of(const Episode& e, const char* key) {
  auto it = e.evidence.find(key);
  return it == e.evidence.end() ? std::nullopt : std::optional<double>(it->second);
}

// The first peak every episode of EPISODES has (nullptr: none).
const Peak* common_peak(std::span<const Episode> episodes) {
  for (const auto& p : peaks()) {
    if (!episodes.empty() && std::all_of(episodes.begin(), episodes.end(), [&](const Episode& e) { return value_of(e, p.key); }))
      return &p;
  }
  return nullptr;
}

// "up to 93 °C" (and ", out of memory in ~5 s at worst" for a leak): the worst over EPISODES.
std::string peak_words(std::span<const Episode> episodes) {
  std::vector<std::string> parts;
  for (const auto& p : peaks()) {
    std::optional<double> worst;
    for (const auto& e : episodes) {
      if (auto v = value_of(e, p.key); v && (!worst || (p.higher_is_worse ? *v > *worst : *v < *worst))) worst = v;
    }
    if (!worst) continue;
    const bool oom = std::string_view(p.key) == "time_to_oom_s";
    if (parts.empty() || oom) parts.push_back(p.words(*worst));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

// True when A is a worse episode than B: severity, then impact, then the peak.
bool worse(const Episode& a, const Episode& b, const Peak* peak) {
  if (a.severity != b.severity) return a.severity > b.severity;
  if (a.impact.has_value() != b.impact.has_value()) return a.impact.has_value();
  if (a.impact && *a.impact != *b.impact) return *a.impact > *b.impact;
  if (peak) {
    const auto va = value_of(a, peak->key), vb = value_of(b, peak->key);
    if (va && vb && *va != *vb) return peak->higher_is_worse ? *va > *vb : *va < *vb;
  }
  return false;
}

std::tm broken_down(Clock::time_point t, bool utc) {
  const std::time_t tt = Clock::to_time_t(t);
  std::tm out{};
  if (utc) gmtime_r(&tt, &out);
  else localtime_r(&tt, &out);
  return out;
}

// "17:24" on REFERENCE's day, "Mon 17:24" within the week before it, else "2026-11-24 17:24".
std::string clock_words(Clock::time_point t, Clock::time_point reference, bool utc) {
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  const std::tm at = broken_down(t, utc), ref = broken_down(reference, utc);
  const std::string hm = fmt::format("{:02}:{:02}", at.tm_hour, at.tm_min);
  // Calendar days (in the zone the words use) from T's to REFERENCE's.
  const auto day_of = [](Clock::time_point p, const std::tm& tm) {
    return static_cast<long long>(std::floor((static_cast<double>(Clock::to_time_t(p)) + static_cast<double>(tm.tm_gmtoff)) / 86400));
  };
  const long long days = day_of(reference, ref) - day_of(t, at);
  if (days == 0) return hm;
  if (days > 0 && days < 7) return fmt::format("{} {}", kDays[at.tm_wday], hm);
  return fmt::format("{:04}-{:02}-{:02} {}", at.tm_year + 1900, at.tm_mon + 1, at.tm_mday, hm);
}

std::string stamp_words(Clock::time_point t, bool utc) {
  const std::tm at = broken_down(t, utc);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", at.tm_year + 1900, at.tm_mon + 1, at.tm_mday, at.tm_hour,
                     at.tm_min, at.tm_sec);
}

// "the day", "the week", else "the 6.5 h range".
std::string range_words(double seconds) {
  if (seconds >= 20 * 3600 && seconds <= 28 * 3600) return "the day";
  if (seconds >= 6 * 86400 && seconds <= 8 * 86400) return "the week";
  return "the " + duration_words(seconds) + " range";
}

// The union of the episodes' spans, in seconds.
double covered_seconds(std::vector<Episode> episodes) {
  std::sort(episodes.begin(), episodes.end(), [](const Episode& a, const Episode& b) { return a.start < b.start; });
  double total = 0;
  std::optional<Clock::time_point> open_start, open_end;
  for (const auto& e : episodes) {
    const auto end = std::max(e.start, e.end);
    if (open_end && e.start <= *open_end) {
      open_end = std::max(*open_end, end);
      continue;
    }
    if (open_start) total += seconds_between(*open_start, *open_end);
    open_start = e.start;
    open_end = end;
  }
  if (open_start) total += seconds_between(*open_start, *open_end);
  return total;
}

std::optional<double> share_of(const std::vector<Episode>& episodes, TimeRange range) {
  const double length = seconds_between(range.start, range.end);
  if (length <= 0) return std::nullopt;
  return std::clamp(covered_seconds(episodes) / length, 0.0, 1.0);
}

Episode episode_of(const Finding& f) { return Episode{f.start, f.end, f.severity, f.impact, f.evidence}; }

struct GroupKey {
  std::string kind;
  std::vector<unsigned> gpus;  // sorted
  std::string job;
  bool operator<(const GroupKey& o) const { return std::tie(kind, gpus, job) < std::tie(o.kind, o.gpus, o.job); }
};

GroupKey key_of(const Finding& f) {
  GroupKey key{f.kind, f.gpus, f.job ? f.job->id : std::string()};
  std::sort(key.gpus.begin(), key.gpus.end());
  key.gpus.erase(std::unique(key.gpus.begin(), key.gpus.end()), key.gpus.end());
  return key;
}

}  // namespace finding_groups_detail

namespace fgd = finding_groups_detail;

std::string recurrence_text(std::span<const Episode> episodes) {
  if (episodes.size() < 3) return "";
  std::vector<double> gaps;
  for (std::size_t i = 1; i < episodes.size(); ++i) gaps.push_back(fgd::seconds_between(episodes[i - 1].start, episodes[i].start));
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (median <= 0) return "";
  const auto regular = std::count_if(gaps.begin(), gaps.end(), [&](double g) { return g >= 0.75 * median && g <= 1.25 * median; });
  if (static_cast<double>(regular) < 0.8 * static_cast<double>(gaps.size())) return "";
  if (median < 57.5) return fmt::format("every ~{:.0f} s", std::max(1.0, std::round(median / 5) * 5));
  if (median < 90 * 60) return fmt::format("every ~{:.0f} min", std::round(median / 60));
  if (median < 36 * 3600) return fmt::format("every ~{:.0f} h", std::round(median / 3600));
  const double days = std::round(median / 86400);
  return days == 1 ? "every ~day" : fmt::format("every ~{:.0f} days", days);
}

std::string trend_text(std::span<const Episode> episodes) {
  if (episodes.size() < 6) return "";
  const bool by_impact = std::all_of(episodes.begin(), episodes.end(), [](const Episode& e) { return e.impact.has_value(); });
  const fgd::Peak* peak = by_impact ? nullptr : fgd::common_peak(episodes);
  if (!by_impact && peak == nullptr) return "";
  auto metric = [&](const Episode& e) { return by_impact ? *e.impact : *fgd::value_of(e, peak->key); };
  const std::size_t third = episodes.size() / 3;
  double first = 0, last = 0;
  for (std::size_t i = 0; i < third; ++i) {
    first += metric(episodes[i]);
    last += metric(episodes[episodes.size() - 1 - i]);
  }
  first /= static_cast<double>(third);
  last /= static_cast<double>(third);
  if (first <= 0 || last <= 0) {
    if (first == last) return "";
    const bool up = last > first;
    return up == (by_impact || peak->higher_is_worse) ? "getting worse" : "easing";
  }
  const double ratio = by_impact || peak->higher_is_worse ? last / first : first / last;
  if (ratio >= 1.15) return "getting worse";
  if (ratio <= 1 / 1.15) return "easing";
  return "";
}

std::string evolution_text(const Finding& grouped, TimeRange range, const GroupOptions& options, bool with_share) {
  const auto& episodes = grouped.episodes;
  if (episodes.size() < 2) return "";
  std::string text = fmt::format("in {} episodes", episodes.size());
  const auto share = grouped.share ? grouped.share : fgd::share_of(episodes, range);
  if (with_share && share) {
    text += fmt::format(" covering {} of {}", fgd::percent_words(*share), fgd::range_words(fgd::seconds_between(range.start, range.end)));
  }
  std::vector<std::string> parts;
  const std::string every = recurrence_text(episodes);
  const auto first = episodes.front().start;
  auto last_end = first;
  for (const auto& e : episodes) last_end = std::max(last_end, e.end);
  // Still going (or until the range's last tenth): "since"; else when it came and went.
  const bool recent = grouped.active || fgd::seconds_between(last_end, range.end) <= 0.1 * fgd::seconds_between(range.start, range.end);
  const std::string when = recent ? "since " + fgd::clock_words(first, range.end, options.utc)
                                  : "between " + fgd::clock_words(first, range.end, options.utc) + " and " +
                                        fgd::clock_words(last_end, range.end, options.utc);
  parts.push_back(every.empty() ? when : every + " " + when);
  if (const auto trend = trend_text(episodes); !trend.empty()) parts.push_back(trend);
  for (const auto& part : parts) text += ", " + part;
  return text;
}

std::vector<std::string> episode_lines(const Finding& finding, const GroupOptions& options) {
  std::vector<std::string> out;
  const std::vector<Episode> one = finding.episodes.empty() ? std::vector<Episode>{fgd::episode_of(finding)} : std::vector<Episode>{};
  for (const auto& e : finding.episodes.empty() ? std::span<const Episode>(one) : std::span<const Episode>(finding.episodes)) {
    std::string line = fmt::format("{} – {} ({})  {}", fgd::stamp_words(e.start, options.utc), fgd::stamp_words(e.end, options.utc).substr(11),
                                   fgd::length_words(fgd::seconds_between(e.start, e.end)), to_string(e.severity));
    if (e.impact) line += "  impact " + fgd::percent_words(*e.impact);
    if (const auto peak = fgd::peak_words(std::span<const Episode>(&e, 1)); !peak.empty()) line += "  " + peak;
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<Finding> group_findings(std::span<const Finding> findings, TimeRange range, const GroupOptions& options) {
  std::map<fgd::GroupKey, std::vector<const Finding*>> groups;
  for (const auto& f : findings) groups[fgd::key_of(f)].push_back(&f);
  std::vector<Finding> out;
  for (auto& [key, members] : groups) {
    // Every episode, and the finding each comes from (its words, PID and GPUs' UUIDs).
    std::vector<std::pair<Episode, const Finding*>> all;
    for (const Finding* f : members) {
      if (f->episodes.empty()) all.emplace_back(fgd::episode_of(*f), f);
      for (const auto& e : f->episodes) all.emplace_back(e, f);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
    std::vector<Episode> episodes;
    for (const auto& [e, f] : all) episodes.push_back(e);
    const fgd::Peak* peak = fgd::common_peak(episodes);
    std::size_t worst = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
      if (fgd::worse(all[i].first, all[worst].first, peak)) worst = i;

    Finding g = members.size() == 1 ? *members.front() : *all[worst].second;
    g.episodes = std::move(episodes);
    g.share = fgd::share_of(g.episodes, range);
    g.start = g.episodes.front().start;
    g.end = g.episodes.front().end;
    g.active = false;
    for (const auto& e : g.episodes) g.end = std::max(g.end, e.end);
    for (const Finding* f : members) g.active = g.active || f->active;
    if (g.episodes.size() > 1) {
      const Episode& w = all[worst].first;
      g.severity = w.severity;
      g.impact = w.impact;
      g.evidence = w.evidence;
      const std::string worst_detail = all[worst].second->episodes.size() > 1 ? std::string() : all[worst].second->detail;
      g.summary = fgd::kind_phrase(g.kind) + " " + evolution_text(g, range, options);
      if (const auto p = fgd::peak_words(g.episodes); !p.empty()) g.summary += ", " + p;
      // The detail says it again in a sentence, then the worst episode's own words.
      std::string evolution = evolution_text(g, range, options);
      evolution[0] = 'I';
      g.detail = fmt::format("{}. The worst, {} – {}{}{}", evolution, fgd::clock_words(w.start, range.end, options.utc),
                             fgd::clock_words(w.end, range.end, options.utc), worst_detail.empty() ? "" : ": ", worst_detail);
    }
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), finding_before);
  return out;
}

}  // namespace gpuwatch::diagnose
