#pragma once
// What a check sees: the GPU's state (windows, trends, current sample) and the tracker it
// reports to. Each check_* function evaluates its kinds for one GPU sample.
#include <optional>

#include "diagnose/finding_tracker.hpp"
#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {

struct CheckContext {
  FindingTracker& tracker;
  GpuState& state;
  const GpuSample& sample;

  TrackKey key(Kind kind, std::uint64_t sub = 0) const { return TrackKey{kind, sample.index, sub}; }
  bool active(Kind kind, std::uint64_t sub = 0) const { return tracker.is_active(key(kind, sub)); }
};

// sum(num) / sum(den) over W, nullopt when den is below MIN.
inline std::optional<double> share(const Window& w, Channel num, Channel den, double min = 1) {
  const double d = w.sum(den);
  if (d < min || d <= 0) return std::nullopt;
  return w.sum(num) / d;
}

// Mean seconds between samples in W (0 with fewer than two).
inline double mean_interval_s(const Window& w) {
  return w.size() < 2 ? 0 : w.covered_s() / static_cast<double>(w.size() - 1);
}

// What the long window says about input stalls (utilization_checks.cpp). From the driver's sample
// buffer when it was read (sub-second samples: the gaps between readings count too), else from the
// readings themselves. Read by input_starved and by comm_bound (the job's GPUs' gaps).
struct StarvationSigns {
  double idle = 0, busy = 0, gaps = 0, gap_s = 0;
  bool from_buffer = false;
};
StarvationSigns starvation_signs(const Window& w);

// One per category of kinds.def (which kinds each evaluates: that file's Category column).
void check_utilization(CheckContext& c);   // Utilization
void check_throttling(CheckContext& c);    // Throttle
void check_memory(CheckContext& c);        // Memory
void check_hardware(CheckContext& c);      // Hardware, but gpu_lost
void check_lost(CheckContext& c);          // gpu_lost
void check_xids(FindingTracker& tracker, GpuState& st, unsigned gpu, double t_s);  // xid

}  // namespace gpuwatch::diagnose
