// serve's host thread (issue 25): one HostSampler::sample(at, roots) on this machine's real /proc
// with ROOTS GPU processes (sleeping children of the bench, one process each, as the simulator's
// stand-ins), against the same sample without roots. What a node's GPU processes add to the
// host signals' cost per tick (bench/serve_host_cpu.sh measures serve's CPU as a whole).
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <vector>

#include "host_signals/host_sampler.hpp"

namespace gpuwatch {
namespace {

// ROOTS sleeping children, ended with the guard.
struct SleepingChildren {
  std::set<unsigned> pids;
  explicit SleepingChildren(int count) {
    for (int i = 0; i < count; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::pause();
        ::_exit(0);
      }
      if (pid > 0) pids.insert(static_cast<unsigned>(pid));
    }
  }
  ~SleepingChildren() {
    for (unsigned pid : pids) ::kill(static_cast<pid_t>(pid), SIGKILL);
    for (unsigned pid : pids) ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
  }
};

void BM_HostSignalsSampleWithTrees(benchmark::State& state) {
  SleepingChildren children(static_cast<int>(state.range(0)));
  auto sampler = host_signals::HostSampler::under_root("/");
  sampler.sample(host_signals::HostSampler::SteadyClock::now(), children.pids);
  for (auto _ : state) {
    auto sample = sampler.sample(host_signals::HostSampler::SteadyClock::now(), children.pids);
    benchmark::DoNotOptimize(sample.process_trees.size());
  }
}
BENCHMARK(BM_HostSignalsSampleWithTrees)->Arg(0)->Arg(8)->Arg(50)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch
