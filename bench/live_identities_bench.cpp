// The live diagnosis with process identities (live/live_identities.hpp, issue 23): what the
// identity cache adds per GPU-sample once every process is known (one map look-up per process
// per tick), on top of BM_DiagnoseObserveLive's engine cost. Budget: the whole <= 2 us.
#include <benchmark/benchmark.h>

#include <vector>

#include "../tests/unit/diagnose/sim_feed.hpp"
#include "diagnose/diagnoser.hpp"
#include "live/live_identities.hpp"

namespace {

void BM_DiagnoseLiveWithIdentities(benchmark::State& state) {
  auto feed = gpuwatch::diagnose::testing::SimFeed::builtin("demo");
  gpuwatch::core::Snapshot snap = feed.snapshot(400);
  gpuwatch::live::IdentityReader reader;
  reader.start_of = [](std::uint32_t pid) { return std::optional<std::uint64_t>(pid); };
  reader.identity_of = [](std::uint32_t pid) {
    return gpuwatch::diagnose::ProcessIdentity{.command = "python train.py --config configs/llama-7b.yaml",
                                               .user = "alice",
                                               .parent_pid = pid / 100};
  };
  gpuwatch::live::LiveIdentities identities(reader);
  gpuwatch::diagnose::Diagnoser d;
  std::int64_t i = 0;
  auto step = [&] {
    snap.timestamp = gpuwatch::diagnose::testing::at_s(static_cast<double>(i++));
    identities.feed(snap, d);
    d.observe(snap);
  };
  for (int w = 0; w < 900; ++w) step();  // warm: windows full, findings open, every process known
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(snap.devices.size()));
}
BENCHMARK(BM_DiagnoseLiveWithIdentities);

}  // namespace
