// The diagnose engine's cost (issue 10: live incremental cost <= 5 us per GPU-sample; a
// 24 h x 8 GPU window at 1 Hz well under 1 s of engine time). Snapshots come from the `demo`
// scenario (8x H100 with processes, GPM, a throttling and a leaking GPU), pre-rendered; their
// timestamps move forward each lap so the engine sees one continuous run.
#include <benchmark/benchmark.h>

#include <vector>

#include "../tests/unit/diagnose/sim_feed.hpp"
#include "diagnose/diagnoser.hpp"

namespace {

using gpuwatch::core::Snapshot;

std::vector<Snapshot>& demo_snapshots() {
  static std::vector<Snapshot> snaps = [] {
    auto feed = gpuwatch::diagnose::testing::SimFeed::builtin("demo");
    std::vector<Snapshot> out;
    for (int t = 0; t < 600; ++t) out.push_back(feed.snapshot(t));  // two demo cycles
    return out;
  }();
  return snaps;
}

// Feeds snapshot I (mod the rendered ones), shifted by whole laps.
void observe(gpuwatch::diagnose::Diagnoser& d, std::vector<Snapshot>& snaps, std::int64_t i) {
  Snapshot& s = snaps[static_cast<std::size_t>(i % static_cast<std::int64_t>(snaps.size()))];
  const auto lap = std::chrono::seconds(static_cast<std::int64_t>(snaps.size()));
  const auto base = gpuwatch::diagnose::testing::at_s(static_cast<double>(i % static_cast<std::int64_t>(snaps.size())));
  s.timestamp = base + lap * (i / static_cast<std::int64_t>(snaps.size()));
  d.observe(s);
}

// Per snapshot of 8 GPUs; items = GPU-samples, so 1/items_per_second is the cost of one.
// Arg 0: each snapshot freshly made, as live (the sampler just wrote it: in cache); Arg 1:
// cycling through 600 pre-rendered snapshots (145 MB, every field read misses the cache).
void BM_DiagnoseObserveLive(benchmark::State& state) {
  auto& all = demo_snapshots();
  std::vector<Snapshot> one{all[400]};
  auto& snaps = state.range(0) == 1 ? all : one;
  gpuwatch::diagnose::Diagnoser d;
  std::int64_t i = 0;
  for (; i < 900; ++i) observe(d, snaps, i);  // warm: windows full, findings open
  for (auto _ : state) observe(d, snaps, i++);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(snaps.front().devices.size()));
}
BENCHMARK(BM_DiagnoseObserveLive)->Arg(0)->Arg(1);

// A whole day of 8 GPUs at 1 Hz through a fresh engine (the engine's part of `diagnose --since 24h`;
// the snapshots come one at a time from the store, so a small set of them is cycled).
void BM_DiagnoseDay8Gpus(benchmark::State& state) {
  std::vector<Snapshot> snaps(demo_snapshots().begin(), demo_snapshots().begin() + 60);
  for (auto _ : state) {
    gpuwatch::diagnose::Diagnoser d;
    for (std::int64_t i = 0; i < 86400; ++i) observe(d, snaps, i);
    benchmark::DoNotOptimize(d.all_findings());
  }
  state.SetItemsProcessed(state.iterations() * 86400 * 8);
}
BENCHMARK(BM_DiagnoseDay8Gpus)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
