// One host signals sample (issue 25): HostSampler::sample() on this machine's real /proc and /sys
// (eight small files, the /sys/block listing, InfiniBand ports where there are any; parsing and
// the rates) against the bare reads of the same files with nothing around them (open, read into
// a buffer, close). The ratio is what the parsing and the rates cost over the kernel's own work.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "host_signals/host_sampler.hpp"

namespace gpuwatch {
namespace {

constexpr const char* kHostSignalFiles[] = {"/proc/stat",     "/proc/pressure/cpu", "/proc/pressure/memory",
                                            "/proc/pressure/io", "/proc/meminfo",   "/proc/vmstat",
                                            "/proc/diskstats", "/proc/net/dev"};

void BM_HostSignalsSample(benchmark::State& state) {
  auto sampler = host_signals::HostSampler::under_root("/");
  sampler.sample();
  for (auto _ : state) {
    auto sample = sampler.sample();
    benchmark::DoNotOptimize(sample.cpu_busy_percent);
  }
}
BENCHMARK(BM_HostSignalsSample)->Unit(benchmark::kMicrosecond);

void BM_HostSignalsBareReads(benchmark::State& state) {
  static char buffer[1 << 16];
  for (auto _ : state) {
    std::size_t bytes = 0;
    for (const char* path : kHostSignalFiles) {
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = 0;
      while ((n = ::read(fd, buffer, sizeof buffer)) > 0) bytes += static_cast<std::size_t>(n);
      ::close(fd);
    }
    if (DIR* dir = ::opendir("/sys/block")) {  // the whole disks, listed at each sample as the sampler does
      while (const dirent* entry = ::readdir(dir)) bytes += entry->d_name[0] != '.';
      ::closedir(dir);
    }
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_HostSignalsBareReads)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpuwatch
