#include "jobs/energy_report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fmt/core.h>
#include <fmt/format.h>
#include <set>

namespace gpuwatch::jobs {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

TimePoint from_unix_s(double s) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(s)));
}

bool covers(const diagnose::Finding& f, unsigned gpu, TimePoint t) {
  if (std::find(f.gpus.begin(), f.gpus.end(), gpu) == f.gpus.end()) return false;
  if (f.episodes.empty()) return f.severity >= diagnose::Severity::Warning && f.start <= t && t <= f.end;
  return std::any_of(f.episodes.begin(), f.episodes.end(), [&](const diagnose::Episode& e) {
    return e.severity >= diagnose::Severity::Warning && e.start <= t && t <= e.end;
  });
}

bool idle_with_memory_held(const EnergyPoint& p) {
  return p.utilization && *p.utilization < kIdleUtilizationBelow && p.memory_used_bytes &&
         *p.memory_used_bytes > kIdleMemoryHeldBytes;
}

std::optional<double> nearest_rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::nullopt;
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::string rate_text(double v) { return fmt::format("{:.4g}", v); }

// "price 0.12 USD/kWh from --price-per-kwh" or "price from table p.csv by hour: hour 14 0.2 USD/kWh, ...".
std::string rate_source(const char* what, const Rate& rate, const std::string& unit, const std::set<int>& hours) {
  if (rate.fixed) return fmt::format("{} {} {} from {}", what, rate_text(*rate.fixed), unit, rate.origin);
  std::vector<std::string> used;
  for (int h : hours) used.push_back(fmt::format("hour {} {} {}", h, rate_text(rate.at_hour(h)), unit));
  return fmt::format("{} from {} by hour: {}", what, rate.origin, fmt::join(used, ", "));
}

std::string share_text(double part, double total) {
  return total > 0 ? fmt::format("{:.1f} %", 100.0 * part / total) : std::string("n/a");
}

nlohmann::json spread_json(const std::optional<Spread>& s) {
  if (!s) return nullptr;
  return {{"median", s->median}, {"p10", s->p10}, {"p90", s->p90}, {"mean", s->mean}};
}

nlohmann::json share_json(double part, double total) { return total > 0 ? nlohmann::json(part / total) : nlohmann::json(); }

StepEnergy step_energy(const std::vector<CumulativeEnergy>& gpus, const std::vector<StepRow>& steps, double sampling_interval_s) {
  StepEnergy out;
  std::vector<double> per_step, per_sample;
  for (const auto& row : steps) {
    const double duration = row.data_wait_s + row.compute_s;
    const TimePoint end = from_unix_s(row.time_s), start = from_unix_s(row.time_s - duration);
    double joules = 0;
    bool inside = !gpus.empty();
    for (const auto& g : gpus) {
      auto e0 = g.at_time(start), e1 = g.at_time(end);
      if (!e0 || !e1) {
        inside = false;
        break;
      }
      joules += *e1 - *e0;
    }
    if (!inside) {
      ++out.outside;
      continue;
    }
    ++out.measured;
    if (duration < kEnergyCounterUpdatePeriodS) ++out.shorter_than_counter;
    if (duration < sampling_interval_s) ++out.shorter_than_sampling;
    per_step.push_back(joules);
    if (row.samples && *row.samples > 0) {
      ++out.with_samples;
      per_sample.push_back(joules / static_cast<double>(*row.samples));
    }
  }
  out.joules_per_step = spread_of(std::move(per_step));
  out.joules_per_sample = spread_of(std::move(per_sample));
  return out;
}

}  // namespace

std::optional<Spread> spread_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  Spread s;
  s.median = *nearest_rank(values, 0.5);
  s.p10 = *nearest_rank(values, 0.1);
  s.p90 = *nearest_rank(values, 0.9);
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

int local_hour(TimePoint t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm parts{};
  if (::localtime_r(&seconds, &parts) == nullptr) return 0;
  return parts.tm_hour;
}

CostCarbon cost_and_carbon(const std::map<int, double>& joules_by_hour, const EnergyRates& rates) {
  CostCarbon out;
  out.currency = rates.currency;
  std::set<int> hours;
  for (const auto& [h, j] : joules_by_hour)
    if (j > 0) hours.insert(h);
  const std::string hint_tail = "--energy-config FILE; docs/energy.md";
  if (!rates.price) out.hints.push_back("cost: no price per kWh configured (--price-per-kwh or " + hint_tail + ")");
  if (!rates.carbon) out.hints.push_back("CO2: no grid intensity configured (--carbon-intensity or " + hint_tail + ")");
  if (!rates.price && !rates.carbon) return out;
  auto pue_at = [&](int h) { return rates.pue ? rates.pue->at_hour(h) : 1.0; };
  if (rates.price) {
    double cost = 0;
    for (const auto& [h, j] : joules_by_hour) cost += j / kJoulesPerKwh * pue_at(h) * rates.price->at_hour(h);
    out.cost = cost;
    out.sources.push_back(rate_source("price", *rates.price, rates.currency + "/kWh", hours));
  }
  if (rates.pue) out.sources.push_back(rate_source("PUE", *rates.pue, "", hours));
  else out.sources.push_back("PUE 1 (not configured: the GPUs' own energy, no facility overhead)");
  if (rates.carbon) {
    double grams = 0;
    for (const auto& [h, j] : joules_by_hour) grams += j / kJoulesPerKwh * pue_at(h) * rates.carbon->at_hour(h);
    out.co2_g = grams;
    out.sources.push_back(rate_source("grid", *rates.carbon, "gCO2/kWh", hours));
  }
  if (!rates.currency_origin.empty() && rates.price)
    out.sources.push_back(fmt::format("currency {} from {}", rates.currency, rates.currency_origin));
  for (auto& s : out.sources) {  // "PUE 1.2  from": no unit, no double space
    for (std::size_t at; (at = s.find("  ")) != std::string::npos;) s.erase(at, 1);
  }
  return out;
}

EnergyReport energy_report(const std::vector<GpuTimeline>& gpus, const std::vector<StepRow>& steps,
                           const std::vector<diagnose::Finding>& findings, const EnergyRates& rates,
                           const HourOf& hour_of, double sampling_interval_s) {
  EnergyReport out;
  std::vector<CumulativeEnergy> cumulative;
  std::set<std::string> sources;
  std::map<int, double> by_hour;
  for (const auto& g : gpus) {
    if (g.timeline == nullptr) continue;
    auto cum = cumulative_energy(*g.timeline);
    if (!cum) continue;
    out.gpus.push_back({g.index, cum->total(), cum->source});
    out.total_j = out.total_j.value_or(0) + cum->total();
    sources.insert(to_string(cum->source));
    for (std::size_t k = 1; k < cum->at.size(); ++k) {
      const double joules = cum->joules[k] - cum->joules[k - 1];
      if (joules <= 0) continue;
      const TimePoint mid = cum->at[k - 1] + (cum->at[k] - cum->at[k - 1]) / 2;
      const EnergyPoint& state = g.timeline->points[cum->point[k]];  // the sample that closes the interval
      out.waste.total_j += joules;
      if (idle_with_memory_held(state)) out.waste.idle_memory_held_j += joules;
      if (state.throttled) out.waste.throttled_j += joules;
      if (std::any_of(findings.begin(), findings.end(), [&](const auto& f) { return covers(f, g.index, mid); }))
        out.waste.finding_active_j += joules;
      by_hour[hour_of(mid)] += joules;
    }
    cumulative.push_back(std::move(*cum));
  }
  if (sources.size() == 1) out.source = *sources.begin();
  else if (sources.size() > 1) out.source = "mixed";
  out.steps = step_energy(cumulative, steps, sampling_interval_s);
  if (out.total_j) out.cost = cost_and_carbon(by_hour, rates);
  return out;
}

nlohmann::json energy_report_json(const EnergyReport& r) {
  if (!r.total_j) return nullptr;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : r.gpus) gpus.push_back({{"index", g.index}, {"joules", g.joules}, {"source", to_string(g.source)}});
  const auto& s = r.steps;
  const auto& w = r.waste;
  return {{"joules", *r.total_j},
          {"source", r.source},
          {"gpus", gpus},
          {"counter_update_period_s", kEnergyCounterUpdatePeriodS},
          {"steps",
           {{"measured", s.measured},
            {"outside_sampled_range", s.outside},
            {"shorter_than_counter_period", s.shorter_than_counter},
            {"shorter_than_sampling_interval", s.shorter_than_sampling},
            {"spread", "median, p10, p90 (nearest rank), mean"},
            {"joules_per_step", spread_json(s.joules_per_step)},
            {"with_samples", s.with_samples},
            {"joules_per_sample", spread_json(s.joules_per_sample)}}},
          {"waste",
           {{"joules", w.total_j},
            {"idle_memory_held_joules", w.idle_memory_held_j},
            {"idle_memory_held_share", share_json(w.idle_memory_held_j, w.total_j)},
            {"throttled_joules", w.throttled_j},
            {"throttled_share", share_json(w.throttled_j, w.total_j)},
            {"finding_active_joules", w.finding_active_j},
            {"finding_active_share", share_json(w.finding_active_j, w.total_j)}}},
          {"cost", r.cost.cost ? nlohmann::json(*r.cost.cost) : nlohmann::json()},
          {"currency", r.cost.cost ? nlohmann::json(r.cost.currency) : nlohmann::json()},
          {"co2_g", r.cost.co2_g ? nlohmann::json(*r.cost.co2_g) : nlohmann::json()},
          {"sources", r.cost.sources},
          {"hints", r.cost.hints}};
}

std::string energy_report_text(const EnergyReport& r) {
  if (!r.total_j) return "";
  std::string out = "  energy per GPU:";
  for (const auto& g : r.gpus)
    out += fmt::format(" GPU {} {:.1f} J ({})", g.index, g.joules,
                       g.source == EnergySource::Counter ? "counter" : "estimated: integrated power");
  out += "\n";
  const auto& s = r.steps;
  if (s.joules_per_step) {
    const auto& j = *s.joules_per_step;
    out += fmt::format("  energy per step: median {:.3g} J (p10 {:.3g}, p90 {:.3g}) over {} steps", j.median, j.p10, j.p90,
                       s.measured);
    if (s.joules_per_sample)
      out += fmt::format("; per sample median {:.3g} J (p10 {:.3g}, p90 {:.3g})", s.joules_per_sample->median,
                         s.joules_per_sample->p10, s.joules_per_sample->p90);
    out += "\n";
    if (s.shorter_than_counter > 0)
      out += fmt::format("    {} steps shorter than the energy counter's update period ({:.0f} ms): their energy is "
                         "interpolated, not measured\n",
                         s.shorter_than_counter, kEnergyCounterUpdatePeriodS * 1000);
    if (s.shorter_than_sampling > 0)
      out += fmt::format("    {} steps shorter than the sampling interval: per-step energy is interpolated between samples\n",
                         s.shorter_than_sampling);
  }
  if (s.outside > 0) out += fmt::format("    {} steps outside the sampled range: no energy\n", s.outside);
  const auto& w = r.waste;
  out += fmt::format("  energy wasted: {} idle with memory held, {} throttled, {} while a warning finding was active\n",
                     share_text(w.idle_memory_held_j, w.total_j), share_text(w.throttled_j, w.total_j),
                     share_text(w.finding_active_j, w.total_j));
  const auto& c = r.cost;
  if (c.cost || c.co2_g) {
    std::vector<std::string> parts;
    if (c.cost) parts.push_back(fmt::format("cost {:.4g} {}", *c.cost, c.currency));
    if (c.co2_g) parts.push_back(fmt::format("CO2 {:.4g} g", *c.co2_g));
    out += fmt::format("  {} ({})\n", fmt::join(parts, ", "), fmt::join(c.sources, "; "));
  }
  for (const auto& hint : c.hints) out += "  " + hint + "\n";
  return out;
}

}  // namespace gpuwatch::jobs
