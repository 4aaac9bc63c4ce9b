// Cost of one NVML call into the stand-in driver (issue: at most 2 µs median), through
// dlopen like every client. The scenario is the 8-GPU demo.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "nvml/nvml_abi.h"

namespace {

struct Driver {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*memory_v2)(nvmlDevice_t, nvmlMemory_v2_t*) = nullptr;
  nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*procs)(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*) = nullptr;
  nvmlDevice_t dev = nullptr;

  Driver() {
    setenv("GPUWATCH_SIM_SCENARIO", "demo", 0);
    lib = dlopen((std::string(GPUWATCH_SIM_DRIVER_DIR) + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    auto sym = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name)); };
    sym(init, "nvmlInit_v2");
    sym(handle, "nvmlDeviceGetHandleByIndex_v2");
    sym(power, "nvmlDeviceGetPowerUsage");
    sym(memory, "nvmlDeviceGetMemoryInfo");
    sym(memory_v2, "nvmlDeviceGetMemoryInfo_v2");
    sym(util, "nvmlDeviceGetUtilizationRates");
    sym(procs, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (init && init() == NVML_SUCCESS && handle) handle(3, &dev);
  }
};

Driver& driver() {
  static Driver d;
  return d;
}

void BM_SimGetPowerUsage(benchmark::State& state) {
  auto& d = driver();
  if (!d.dev) return state.SkipWithError("simulated driver not loaded");
  unsigned v = 0;
  for (auto _ : state) benchmark::DoNotOptimize(d.power(d.dev, &v));
}
BENCHMARK(BM_SimGetPowerUsage);

void BM_SimGetMemoryInfo(benchmark::State& state) {
  auto& d = driver();
  if (!d.dev) return state.SkipWithError("simulated driver not loaded");
  nvmlMemory_t m{};
  for (auto _ : state) benchmark::DoNotOptimize(d.memory(d.dev, &m));
}
BENCHMARK(BM_SimGetMemoryInfo);

void BM_SimGetMemoryInfoV2(benchmark::State& state) {
  auto& d = driver();
  if (!d.dev) return state.SkipWithError("simulated driver not loaded");
  nvmlMemory_v2_t m{};
  m.version = nvmlMemory_v2;
  for (auto _ : state) benchmark::DoNotOptimize(d.memory_v2(d.dev, &m));
}
BENCHMARK(BM_SimGetMemoryInfoV2);

void BM_SimGetUtilizationRates(benchmark::State& state) {
  auto& d = driver();
  if (!d.dev) return state.SkipWithError("simulated driver not loaded");
  nvmlUtilization_t u{};
  for (auto _ : state) benchmark::DoNotOptimize(d.util(d.dev, &u));
}
BENCHMARK(BM_SimGetUtilizationRates);

void BM_SimGetComputeRunningProcesses(benchmark::State& state) {
  auto& d = driver();
  if (!d.dev) return state.SkipWithError("simulated driver not loaded");
  nvmlProcessInfo_t p[8];
  for (auto _ : state) {
    unsigned count = 8;
    benchmark::DoNotOptimize(d.procs(d.dev, &count, p));
  }
}
BENCHMARK(BM_SimGetComputeRunningProcesses);

}  // namespace
