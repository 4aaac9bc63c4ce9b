#pragma once
// The energy part of a job's summary (issue 29): energy per GPU and for the job (the counter
// where the GPU has one, else integrated power: "estimated"), energy per training step with its
// spread, the waste split, and cost and CO2 from the configured rates with where each came from.
// Pure logic over the GPUs' EnergyTimelines, the steps file and the findings; docs/energy.md.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"
#include "jobs/energy_rates.hpp"
#include "jobs/energy_timeline.hpp"
#include "jobs/steps_file.hpp"

namespace gpuwatch::jobs {

struct GpuEnergy {
  unsigned index = 0;
  double joules = 0;
  EnergySource source = EnergySource::Counter;
};

// Per-step energy: the job's energy (all its GPUs) between a step's start (time - data_wait -
// compute) and its end (time). Spread: median with the 10th and 90th percentiles (nearest rank).
struct Spread {
  double median = 0, p10 = 0, p90 = 0, mean = 0;
};
std::optional<Spread> spread_of(std::vector<double> values);

struct StepEnergy {
  std::size_t measured = 0;              // steps inside the sampled range of every GPU
  std::size_t outside = 0;               // steps (partly) outside it: no energy
  std::size_t shorter_than_counter = 0;  // measured steps shorter than kEnergyCounterUpdatePeriodS
  std::size_t shorter_than_sampling = 0; // measured steps shorter than the sampling interval: interpolated
  std::optional<Spread> joules_per_step;
  std::size_t with_samples = 0;          // measured steps whose row gives "samples"
  std::optional<Spread> joules_per_sample;
};

// Shares of the job's energy (they overlap: a throttled interval with a warning active counts in both).
struct WasteSplit {
  double total_j = 0;
  double idle_memory_held_j = 0;  // utilization < kIdleUtilizationBelow with > kIdleMemoryHeldBytes used
  double throttled_j = 0;         // a throttle reason active (not idle, not application clocks)
  double finding_active_j = 0;    // a finding of warning or worse active on that GPU
};

struct CostCarbon {
  std::optional<double> cost;  // in currency
  std::optional<double> co2_g;
  std::string currency;
  std::vector<std::string> sources;  // "price 0.12 USD/kWh from --price-per-kwh", ...
  std::vector<std::string> hints;    // what to configure for what is missing
};

struct EnergyReport {
  std::vector<GpuEnergy> gpus;
  std::optional<double> total_j;
  std::string source;  // "counter", "estimated", "mixed"
  StepEnergy steps;
  WasteSplit waste;
  CostCarbon cost;
};

// The hour of the day (0..23) of T for the tables by hour (local time at the edge; UTC in tests).
using HourOf = std::function<int(TimePoint)>;
int local_hour(TimePoint t);

struct GpuTimeline {
  unsigned index = 0;
  const EnergyTimeline* timeline = nullptr;
};

EnergyReport energy_report(const std::vector<GpuTimeline>& gpus, const std::vector<StepRow>& steps,
                           const std::vector<diagnose::Finding>& findings, const EnergyRates& rates,
                           const HourOf& hour_of, double sampling_interval_s);

// The cost and CO2 of JOULES_BY_HOUR (hour of day -> joules) at RATES, with their sources.
CostCarbon cost_and_carbon(const std::map<int, double>& joules_by_hour, const EnergyRates& rates);

nlohmann::json energy_report_json(const EnergyReport& report);
// Lines for the summary (two-space indent), ending with a newline; "" without energy.
std::string energy_report_text(const EnergyReport& report);

}  // namespace gpuwatch::jobs
