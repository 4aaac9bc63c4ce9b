// The local alert engine's cost (issue 11: <= 2 us per rule per GPU per tick with the default
// rule set on 8 GPUs). Snapshots come from the `demo` scenario (8x H100 with processes, a
// throttling and a leaking GPU), pre-rendered; each tick also carries the live findings, as
// `serve` feeds it. Reported: ns per tick; per_rule_per_gpu = tick / (local rules x GPUs).
#include <benchmark/benchmark.h>

#include <vector>

#include "../tests/unit/diagnose/sim_feed.hpp"
#include "alerts/builtin_rules.hpp"
#include "alerts/engine.hpp"
#include "diagnose/diagnoser.hpp"

namespace {

using namespace gpuwatch;

struct Tick {
  core::Snapshot snapshot;
  std::vector<diagnose::Finding> findings;
};

std::vector<Tick>& demo_ticks() {
  static std::vector<Tick> ticks = [] {
    auto feed = diagnose::testing::SimFeed::builtin("demo");
    diagnose::Diagnoser d;
    std::vector<Tick> out;
    for (int t = 0; t < 600; ++t) {
      Tick k{feed.snapshot(t), {}};
      d.observe(k.snapshot);
      k.findings = d.findings();
      out.push_back(std::move(k));
    }
    return out;
  }();
  return ticks;
}

alerts::TickInput tick_input(const Tick& k, std::int64_t i) {
  alerts::TickInput in;
  in.now = diagnose::testing::at_s(static_cast<double>(i));
  in.host = "bench";
  in.gpu_count = k.snapshot.device_count;
  in.findings = k.findings;
  in.sampler_age_s = 0.2;
  for (const auto& d : k.snapshot.devices) {
    alerts::GpuInput g;
    g.index = d.index;
    g.sample = &d;
    g.age_s = 0.2;
    for (const auto& p : d.processes) g.process_commands.push_back(p.name);
    in.gpus.push_back(std::move(g));
  }
  return in;
}

std::int64_t local_rules(const alerts::RuleSet& rules) {
  std::int64_t n = 0;
  for (const auto& r : rules.rules) n += r.local ? 1 : 0;
  return n;
}

// One tick of the default rule set on the 8 demo GPUs (the windows full: 2 h warm-up).
void BM_AlertsTick8Gpus(benchmark::State& state) {
  auto& ticks = demo_ticks();
  std::vector<alerts::TickInput> inputs;
  for (std::size_t i = 0; i < ticks.size(); ++i) inputs.push_back(tick_input(ticks[i], 0));
  alerts::Engine engine(alerts::builtin_rules(), "bench");
  std::int64_t i = 0;
  auto step = [&] {
    auto& in = inputs[static_cast<std::size_t>(i % static_cast<std::int64_t>(inputs.size()))];
    in.now = diagnose::testing::at_s(static_cast<double>(i));
    ++i;
    return engine.evaluate(in);
  };
  for (; i < 7200; ++i) step();
  for (auto _ : state) benchmark::DoNotOptimize(step());
  const auto per_tick = local_rules(engine.rules()) * 8;
  state.counters["rules"] = static_cast<double>(local_rules(engine.rules()));
  state.counters["per_rule_per_gpu"] =
      benchmark::Counter(static_cast<double>(state.iterations() * per_tick), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AlertsTick8Gpus);

}  // namespace
