#pragma once
// GET /api/v1/energy (issue 29, docs/api.md): the energy of a window of recent history, per GPU
// and in all, with its cost and CO2 at serve's rates. Built from the rows /api/v1/history answers
// with (exporter/history_window.hpp): one jobs::EnergyTimeline per GPU (the energy counter, power,
// utilization, memory used and whether a throttle reason was active), then jobs::energy_report,
// as `gpuwatch run` does for a job. Findings are not replayed here: the waste split's
// finding_active_* are null and "findings_considered" false. Pure: no I/O, no clock.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exporter/json_api.hpp"  // HistoryOrigin
#include "jobs/energy_rates.hpp"
#include "jobs/energy_report.hpp"
#include "jobs/energy_timeline.hpp"
#include "live/sample_history.hpp"

namespace gpuwatch::exporter {

// One history row as an energy point (NaN columns absent; throttled: a reason of
// jobs::throttle_reasons() set in the clock event reasons' mask).
jobs::EnergyPoint energy_point(const live::HistoryRow& row);

// The rows of each of GPUS as a timeline, in row order (a GPU without rows gets an empty one).
std::map<unsigned, jobs::EnergyTimeline> energy_timelines(const std::vector<live::HistoryRow>& rows,
                                                           const std::vector<unsigned>& gpus);

struct EnergyWindow {
  std::optional<double> seconds;  // what was asked; nullopt: what the ring holds
  double until_s = 0;             // now
  double interval_s = 1;          // the sampling interval
};

// The answer's JSON: {"range", "origin", "energy" (jobs::energy_report_json, null when no GPU
// gave energy), "findings_considered": false}.
std::string energy_api_json(const std::vector<live::HistoryRow>& rows, const std::vector<unsigned>& gpus,
                            const EnergyWindow& window, const HistoryOrigin& origin, const jobs::EnergyRates& rates,
                            const jobs::HourOf& hour_of);

}  // namespace gpuwatch::exporter
