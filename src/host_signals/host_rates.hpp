#pragma once
// Two readings into a HostSample (pure). PREVIOUS absent (a first reading): the instant values
// only (PSI averages, memory), every rate absent. A counter lower than before (a reset, an
// interface that came back) gives that one rate absent.
#include <optional>

#include "host_signals/host_reading.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::host_signals {

// CPU time comes in 10 ms ticks per core (USER_HZ 100): over less than 5 ticks a busy share is
// noise (0, 50 or 100 % on a 2-core machine), so CPU rates over a shorter window are absent. A
// one-shot status, which waits for nothing, shows PSI's 10 s average instead.
inline constexpr double kMinCpuWindowS = 0.05;

HostSample host_sample_of(const std::optional<HostReading>& previous, const HostReading& now);

}  // namespace gpuwatch::host_signals
