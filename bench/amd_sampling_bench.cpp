// Sampling one AMD GPU through the backend (every claimed field's read group, as the Sampler
// reads them, plus its processes with their utilization) against the bare reads of the same
// files (open/read/close each, nothing around them), on a fake amdgpu tree in a temporary
// folder (bench/../tests/unit/amd/fake_amd_tree.hpp: an MI300X-like card, 4 processes with 2
// DRM clients each). Issue 28's target: within 2x. The files a steady sample reads are recorded
// (drm::set_read_observer) once, then replayed bare.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "../tests/unit/amd/fake_amd_tree.hpp"
#include "amd/amd_backend.hpp"
#include "drm/small_file.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch {
namespace {

using amd::fake_amd_tree::CountingTree;
using amd::fake_amd_tree::FakeAmdTree;

struct AmdNode {
  FakeAmdTree tree;
  std::shared_ptr<CountingTree> clock = std::make_shared<CountingTree>();
  std::unique_ptr<backend::DeviceBackend> backend;
  AmdNode() {
    tree.add_amd_card(0, "0000:c1:00.0");
    for (unsigned p = 0; p < 4; ++p) {
      for (unsigned fd = 0; fd < 2; ++fd) {
        tree.add_fdinfo(30000 + p, 10 + fd, "amdgpu", "0000:c1:00.0", 100 + p * 2 + fd, 0, 1000000ull * p, 4096);
      }
      tree.write("proc/" + std::to_string(30000 + p) + "/comm", "worker\n");
    }
    backend::OpenOptions options;
    options.host_root = tree.root();
    options.simulated_tree = clock;  // a clock each sample moves, so each sample scans anew
    auto opened = amd::open_backend(options);
    if (!opened) std::abort();
    backend = std::move(*opened);
  }
};

AmdNode& amd_node() {
  static AmdNode n;
  return n;
}

sampler::SampleOptions amd_options() {
  sampler::SampleOptions o;  // every claimed field, every read group each sample
  o.processes = true;
  o.process_utilization = true;
  return o;
}

std::vector<std::string>& recorded() {
  static std::vector<std::string> paths;
  return paths;
}

void record_path(const char* path) { recorded().emplace_back(path); }

// The files one steady sample reads (after the first, whose unsupported fields the Sampler
// then stops asking).
const std::vector<std::string>& files_of_one_sample() {
  static const std::vector<std::string> files = [] {
    AmdNode& n = amd_node();
    sampler::Sampler sampler(*n.backend);
    core::Snapshot snap;
    long long clock = 1700000000000;
    n.backend->set_sim_clock(clock += 1000);
    sampler.sample_into(amd_options(), snap);
    n.backend->set_sim_clock(clock += 1000);
    recorded().clear();
    drm::set_read_observer(&record_path);
    sampler.sample_into(amd_options(), snap);
    drm::set_read_observer(nullptr);
    return recorded();
  }();
  return files;
}

void BM_AmdSampleThroughBackend(benchmark::State& state) {
  AmdNode& n = amd_node();
  const auto files = files_of_one_sample().size();
  sampler::Sampler sampler(*n.backend);
  core::Snapshot snap;
  const sampler::SampleOptions options = amd_options();
  long long clock = 1700000000000;
  for (auto _ : state) {
    n.backend->set_sim_clock(clock += 1000);
    sampler.sample_into(options, snap);
    benchmark::DoNotOptimize(snap.devices.data());
  }
  state.counters["files"] = static_cast<double>(files);
  state.counters["processes"] = static_cast<double>(snap.devices.empty() ? 0 : snap.devices[0].processes.size());
}
BENCHMARK(BM_AmdSampleThroughBackend)->Unit(benchmark::kMicrosecond);

void BM_AmdBareFileReads(benchmark::State& state) {
  const std::vector<std::string>& files = files_of_one_sample();
  char buf[4096];
  for (auto _ : state) {
    for (const auto& path : files) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) benchmark::DoNotOptimize(buf[0]);
      ::close(fd);
    }
  }
  state.counters["files"] = static_cast<double>(files.size());
}
BENCHMARK(BM_AmdBareFileReads)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch
