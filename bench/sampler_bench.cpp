// A full sample of 8 simulated H100s (every claimed field, 50 processes with their
// utilization) through the Sampler, against replaying the exact NVML calls that
// sample made, with nothing around them (the "bare NVML" cost). Target: <= 1.2x.
//
// The bare replay is recorded generically: every NVML entry point is wrapped (from
// nvml_symbols.def) during one sample; each call is stored with its arguments, and
// pointer arguments are redirected to scratch memory whose input bytes are restored
// before each replayed call (so size queries and struct versions behave the same).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "nvml/nvml_backend.hpp"
#include "nvml/nvml_library.hpp"
#include "nvml/sample_buffer_reader.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch {
namespace {

// 8 GPUs, 50 processes with fixed PIDs (no stand-ins needed).
std::string write_scenario() {
  std::string yaml = "name: bench\ndescription: sampler benchmark\ngpus:\n";
  int pid = 40000;
  for (int g = 0; g < 8; ++g) {
    yaml += "  - model: H100 SXM 80GB\n    phases:\n      - {kind: training, duration: 1h}\n    processes:\n";
    for (int p = 0; p < (g < 2 ? 7 : 6); ++p) {
      yaml += "      - {command: \"python worker.py\", user: bench, memory: 1024, pid: " + std::to_string(pid++) + "}\n";
    }
  }
  std::string path = "/tmp/gpuwatch_sampler_bench_" + std::to_string(getpid()) + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

struct Node {
  std::unique_ptr<nvml::NvmlLibrary> library;
  std::unique_ptr<nvml::NvmlBackend> backend;  // over the library's functions (the library stays here)
  Node() {
    setenv("GPUWATCH_SIM_SCENARIO", write_scenario().c_str(), 1);
    auto lib = nvml::NvmlLibrary::open(std::string(GPUWATCH_SIM_DRIVER_DIR) + "/libnvidia-ml.so.1");
    if (!lib) {
      std::fprintf(stderr, "%s\n", lib.error().message.c_str());
      std::abort();
    }
    library = std::move(*lib);
    backend = std::make_unique<nvml::NvmlBackend>(library->api().raw());
  }
};
Node& node() {
  static Node n;
  return n;
}

sampler::SampleOptions full_options() {
  sampler::SampleOptions o;  // fields empty: every claimed field
  o.processes = true;
  o.process_utilization = true;
  return o;
}

// --- recording ---------------------------------------------------------------
constexpr std::size_t kScratchBytes = 1 << 16;
constexpr std::size_t kMaxArgs = 8;
alignas(64) char g_scratch[kMaxArgs][kScratchBytes];

struct ReplayCall {
  std::function<nvmlReturn_t()> invoke;
  std::vector<std::pair<std::size_t, std::vector<char>>> inputs;  // scratch slot, input bytes
};
nvml::NvmlFunctions g_real;
std::vector<ReplayCall>* g_trace = nullptr;

template <typename T>
T redirect(T value, std::size_t slot, ReplayCall& call) {
  if constexpr (std::is_pointer_v<T> && !std::is_same_v<T, nvmlDevice_t> && !std::is_same_v<T, nvmlEventSet_t> &&
                !std::is_same_v<T, nvmlGpmSample_t> &&  // opaque handles pass through
                !std::is_const_v<std::remove_pointer_t<T>> && !std::is_void_v<std::remove_pointer_t<T>>) {
    if (value == nullptr) return value;
    constexpr std::size_t size = sizeof(std::remove_pointer_t<T>);
    std::vector<char> bytes(reinterpret_cast<const char*>(value), reinterpret_cast<const char*>(value) + size);
    call.inputs.emplace_back(slot, std::move(bytes));
    return reinterpret_cast<T>(g_scratch[slot]);
  } else {
    return value;
  }
}

template <auto Member, typename Sig>
struct Recorder;
template <auto Member, typename... A>
struct Recorder<Member, nvmlReturn_t (*)(A...)> {
  static nvmlReturn_t call(A... args) {
    auto real = g_real.*Member;
    ReplayCall entry;
    std::size_t slot = 0;
    auto replay_args = std::tuple<A...>{redirect(args, slot++, entry)...};
    entry.invoke = [real, replay_args] { return std::apply(real, replay_args); };
    g_trace->push_back(std::move(entry));
    return real(args...);
  }
};

nvml::NvmlFunctions recording_functions(const nvml::NvmlFunctions& real) {
  g_real = real;
  nvml::NvmlFunctions rec = real;
#define GW_NVML_FN(name, params) \
  if (real.name) rec.name = &Recorder<&nvml::NvmlFunctions::name, decltype(nvml::NvmlFunctions::name)>::call;
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  return rec;
}

std::vector<ReplayCall> record_one_sample() {
  std::vector<ReplayCall> trace;
  g_trace = &trace;
  nvml::NvmlBackend recording(recording_functions(node().library->api().raw()));
  sampler::Sampler s(recording);
  core::Snapshot snap;
  s.sample_into(full_options(), snap);  // warms the unsupported cache like a steady-state tick
  trace.clear();
  s.sample_into(full_options(), snap);
  g_trace = nullptr;
  return trace;
}

// --- benchmarks --------------------------------------------------------------
void BM_SamplerFullSample(benchmark::State& state) {
  sampler::Sampler s(*node().backend);
  const sampler::SampleOptions options = full_options();
  core::Snapshot snap;
  s.sample_into(options, snap);
  std::size_t processes = 0;
  for (auto _ : state) {
    s.sample_into(options, snap);
    processes = 0;
    for (const auto& d : snap.devices) processes += d.processes.size();
    benchmark::DoNotOptimize(snap);
  }
  state.counters["gpus"] = 8;
  state.counters["processes"] = static_cast<double>(processes);
}
BENCHMARK(BM_SamplerFullSample)->Unit(benchmark::kMicrosecond);

// The same with a fresh Snapshot each time (what `sample()` costs).
void BM_SamplerFreshSnapshot(benchmark::State& state) {
  sampler::Sampler s(*node().backend);
  const sampler::SampleOptions options = full_options();
  (void)s.sample(options);
  for (auto _ : state) benchmark::DoNotOptimize(s.sample(options));
}
BENCHMARK(BM_SamplerFreshSnapshot)->Unit(benchmark::kMicrosecond);

// A sample of a loop polling every second (issue 24): the driver's clock advances 1 s per
// iteration (gpuwatchSimSetClock), so each sample finds the values of a new second and, with
// ARG 1, reads the 6 new utilization samples of each GPU's buffer (nvml::SampleBufferReader)
// besides the Sampler's fields. ARG 0 is the same sample without the buffer: the ratio of the two
// is what reading the buffer adds to a sample's cost.
void BM_SamplerEverySecond(benchmark::State& state) {
  const bool read_buffer = state.range(0) != 0;
  auto set_clock = node().library->sim_clock_setter();
  sampler::Sampler s(*node().backend);
  const sampler::SampleOptions options = full_options();
  std::vector<nvml::SampleBufferReader> buffers;
  for (int g = 0; g < 8; ++g) buffers.emplace_back(node().library->api());
  core::Snapshot snap;
  long long clock_ms = 1'800'000'000'000;
  auto one = [&] {
    set_clock(clock_ms += 1000);
    s.sample_into(options, snap);
    if (read_buffer)
      for (auto& d : snap.devices)
        buffers[d.index].read(nvml::NvmlBackend::nvml_device(s.handle_of(d.index)), d, std::chrono::system_clock::time_point(std::chrono::milliseconds(clock_ms)));
  };
  one();
  for (auto _ : state) {
    one();
    benchmark::DoNotOptimize(snap);
  }
  set_clock(0);
}
BENCHMARK(BM_SamplerEverySecond)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_BareNvmlCalls(benchmark::State& state) {
  std::vector<ReplayCall> trace = record_one_sample();
  for (auto _ : state) {
    for (const auto& call : trace) {
      for (const auto& [slot, bytes] : call.inputs) std::memcpy(g_scratch[slot], bytes.data(), bytes.size());
      benchmark::DoNotOptimize(call.invoke());
    }
  }
  state.counters["nvml_calls"] = static_cast<double>(trace.size());
}
BENCHMARK(BM_BareNvmlCalls)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch
