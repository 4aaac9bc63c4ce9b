// Sampling one Intel GPU through the backend (files only: Level Zero "none"; every claimed
// field's read group, as the Sampler reads them, plus its processes with their utilization)
// against the bare reads of the same files (open/read/close each, and the /proc walk that finds
// the fdinfo files, nothing around them), on a fake xe tree in a temporary folder
// (tests/unit/intel/intel_fake_tree.hpp: a Max 1550-like card, 4 processes with 2 DRM clients
// each). Issue 28's target: within 2x.
#include <benchmark/benchmark.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "../tests/unit/intel/intel_fake_tree.hpp"
#include "intel/intel_backend.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch {
namespace {

using intel_fake_tree::FakeRoot;
using intel_fake_tree::FakeSimulatedTree;

constexpr const char* kIntelSlot = "0000:3a:00.0";

struct IntelNode {
  FakeRoot root;
  std::shared_ptr<FakeSimulatedTree> clock = std::make_shared<FakeSimulatedTree>();
  std::unique_ptr<backend::DeviceBackend> backend;
  IntelNode() {
    root.xe_card(0, kIntelSlot, "8086:0BD5");
    for (unsigned p = 0; p < 4; ++p) {
      for (unsigned fd = 0; fd < 2; ++fd) {
        root.fdinfo(30000 + p, 10 + fd, intel_fake_tree::xe_fdinfo(kIntelSlot, 100 + p * 2 + fd, 1000ull * p, 100000, 4096));
      }
      root.write("proc/" + std::to_string(30000 + p) + "/comm", "worker\n");
    }
    backend::OpenOptions options;
    options.host_root = root.path();
    options.level_zero_library = "none";
    options.simulated_tree = clock;  // a clock each sample moves, so each sample scans anew
    auto opened = intel::open_backend(options);
    if (!opened) std::abort();
    backend = std::move(*opened);
  }
};

IntelNode& intel_node() {
  static IntelNode n;
  return n;
}

sampler::SampleOptions intel_options() {
  sampler::SampleOptions o;  // every claimed field, every read group each sample
  o.processes = true;
  o.process_utilization = true;
  return o;
}

void BM_IntelSampleThroughBackend(benchmark::State& state) {
  IntelNode& n = intel_node();
  sampler::Sampler sampler(*n.backend);
  core::Snapshot snap;
  const sampler::SampleOptions options = intel_options();
  long long clock = 1700000000000;
  for (auto _ : state) {
    n.backend->set_sim_clock(clock += 1000);
    sampler.sample_into(options, snap);
    benchmark::DoNotOptimize(snap.devices.data());
  }
  state.counters["processes"] = static_cast<double>(snap.devices.empty() ? 0 : snap.devices[0].processes.size());
}
BENCHMARK(BM_IntelSampleThroughBackend)->Unit(benchmark::kMicrosecond);

void read_whole(const std::string& path, char* buf, std::size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t got;
  while ((got = ::read(fd, buf, size)) > 0) benchmark::DoNotOptimize(buf[0]);
  ::close(fd);
}

// The files a steady sample's values come from, each once: the card's clock and RP0, hwmon's
// power limits, energy and temperature, and every process's fdinfo files and comm (the backend
// also checks the card is still there and reads PL1 and the energy counter twice).
void BM_IntelBareFileReads(benchmark::State& state) {
  IntelNode& n = intel_node();
  const std::string dev = n.root.path() + "/sys/class/drm/card0/device/";
  const std::string hw = dev + "hwmon/hwmon5/";
  const std::vector<std::string> files = {dev + "tile0/gt0/freq0/act_freq", dev + "tile0/gt0/freq0/rp0_freq",
                                          hw + "power1_max", hw + "power1_rated_max", hw + "energy1_input",
                                          hw + "temp2_input"};
  const std::string proc = n.root.path() + "/proc";
  char buf[4096];
  for (auto _ : state) {
    for (const auto& path : files) read_whole(path, buf, sizeof buf);
    DIR* pids = ::opendir(proc.c_str());
    while (const dirent* p = ::readdir(pids)) {
      if (p->d_name[0] < '0' || p->d_name[0] > '9') continue;
      const std::string pid_dir = proc + "/" + p->d_name;
      DIR* fds = ::opendir((pid_dir + "/fdinfo").c_str());
      if (fds == nullptr) continue;
      while (const dirent* f = ::readdir(fds)) {
        if (f->d_name[0] >= '0' && f->d_name[0] <= '9') read_whole(pid_dir + "/fdinfo/" + f->d_name, buf, sizeof buf);
      }
      ::closedir(fds);
      read_whole(pid_dir + "/comm", buf, sizeof buf);
    }
    ::closedir(pids);
  }
}
BENCHMARK(BM_IntelBareFileReads)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch
