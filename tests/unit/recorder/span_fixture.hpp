#pragma once
// A two-GPU sample with the given processes, for the span tests (owner_spans_test.cpp,
// command_spans_test.cpp).
#include <cstdint>
#include <utility>
#include <vector>

#include "unit/store/store_fixture.hpp"

namespace gpuwatch::recorder::testing {

// At TIME_MS, each (gpu, pid) of GPU_PIDS as a process named `python` on that GPU.
inline core::Snapshot with_processes(std::int64_t time_ms, const std::vector<std::pair<unsigned, std::uint32_t>>& gpu_pids) {
  auto snapshot = store::testing::make_snapshot(time_ms, 2);
  for (auto [gpu, pid] : gpu_pids) {
    core::ProcessSample p;
    p.pid = pid;
    p.name = "python";
    snapshot.devices[gpu].processes.push_back(p);
  }
  return snapshot;
}

}  // namespace gpuwatch::recorder::testing
