#pragma once
// Internals shared by the Simulation's translation units (not a public header).
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kEnergyStep = 1.0;  // scenario seconds per integration step

inline double num_or(const Value& v, double fallback) { return v.is_number() ? v.number : fallback; }

inline double pstate_number(const Value& v) {
  if (v.kind == Value::Kind::Text && v.text.size() >= 2 && v.text[0] == 'P') return std::atof(v.text.c_str() + 1);
  return v.is_number() ? v.number : 0;
}

// Noise channels.
enum Channel : unsigned { kUtil = 1, kMemUtil, kPower, kClock, kTemp, kMemClock, kProc };

}  // namespace gpuwatch::sim::detail

namespace gpuwatch::sim {

struct Simulation::Instant {
  double util = 0, mem_util = 0, power_w = 0, gfx = 0, mem_clock = 0, temp = 0;
  std::uint64_t reasons = 0;
  double pstate = 0;
  double leak_fraction = -1;       // memory_leak: 0..1 of the free memory taken
  double leak_mib = -1;            // memory_leak with a rate: MiB grown so far (-1: use the fraction)
  double fragmentation = 0;        // allocator cache of the first process, as a fraction of free memory
  bool processes_visible = true;
  double nvlink_share = 0;         // share of the GPU's NVLink rate flowing now (issue 25; phase `nvlink:`)
  bool replay = false;
  const ReplayRow* row = nullptr;
  int phase = -1;
};

}  // namespace gpuwatch::sim
