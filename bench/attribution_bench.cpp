// Cost of attribution (issue 15), on a fake /proc tree of 200 GPU processes in a temp dir
// (cgroup v2 pod paths, an environment, stat, status), as serve and status pay it per sample.
// Targets: 200 processes from a warm cache < 2 ms per sample; a cold lookup of one PID < 200 µs
// (no gRPC: the pod list is served from memory by the list_pods seam).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "attribution/attributor.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpuwatch::attribution;
using namespace std::string_literals;

constexpr unsigned kFirstPid = 10000;

struct FakeProc {
  explicit FakeProc(unsigned count) {
    root = fs::temp_directory_path() / ("gpuwatch-attr-bench-" + std::to_string(getpid()));
    for (unsigned i = 0; i < count; ++i) {
      const unsigned pid = kFirstPid + i;
      fs::path dir = root / std::to_string(pid);
      fs::create_directories(dir);
      char uid[64];
      std::snprintf(uid, sizeof uid, "%08x_8f3c_4e2a_9d71_%012x", i, i);
      std::ofstream(dir / "cgroup") << "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" << uid
                                    << ".slice/cri-containerd-3f4e8c2b9a1d7e6f5c4b3a2918273645d6e7f8091a2b3c4d5e6f708192a3"
                                    << std::hex << (0x100 + i % 0xf00) << ".scope\n";
      std::string env = "PATH=/usr/bin"s + '\0' + "HOSTNAME=pod-" + std::to_string(i) + '\0' +
                        "NVIDIA_VISIBLE_DEVICES=GPU-" + std::to_string(i % 8) + '\0';
      std::ofstream(dir / "environ", std::ios::binary) << env;
      std::ofstream(dir / "stat") << pid << " (python) S 1 1 1 0 -1 0 0 0 0 0 5 3 0 0 20 0 1 0 " << 1000 + i << " 1 1\n";
      std::ofstream(dir / "status") << "Name:\tpython\nNSpid:\t" << pid << "\t1\nUid:\t0\t0\t0\t0\n";
      processes.push_back({pid, i % 8, "GPU-" + std::to_string(i % 8)});
    }
    for (unsigned g = 0; g < 8; ++g) {
      pods.push_back({"pod-" + std::to_string(g), "ml", "main", "nvidia.com/gpu", {"GPU-" + std::to_string(g)}});
    }
  }
  ~FakeProc() { fs::remove_all(root); }
  AttributorOptions options() const {
    AttributorOptions o;
    o.proc_root = root.string();
    o.list_pods = [list = pods] { return gpuwatch::core::Result<PodResourceList>(list); };
    o.log = [](const std::string&) {};
    return o;
  }
  fs::path root;
  std::vector<GpuProcess> processes;
  PodResourceList pods;
};

void BM_AttributeWarm200(benchmark::State& state) {
  FakeProc proc(200);
  Attributor attributor(proc.options());
  attributor.refresh();
  attributor.attribute(proc.processes);  // warm the cache
  for (auto _ : state) benchmark::DoNotOptimize(attributor.attribute(proc.processes));
  state.SetLabel("200 processes per sample, warm cache");
}
BENCHMARK(BM_AttributeWarm200)->Unit(benchmark::kMicrosecond);

void BM_AttributeColdOne(benchmark::State& state) {
  FakeProc proc(1);
  auto options = proc.options();
  for (auto _ : state) {
    state.PauseTiming();
    auto attributor = std::make_unique<Attributor>(options);
    attributor->refresh();
    state.ResumeTiming();
    benchmark::DoNotOptimize(attributor->attribute(proc.processes));
    state.PauseTiming();
    attributor.reset();
    state.ResumeTiming();
  }
  state.SetLabel("one PID, nothing cached (no gRPC)");
}
BENCHMARK(BM_AttributeColdOne)->Unit(benchmark::kMicrosecond);

}  // namespace
