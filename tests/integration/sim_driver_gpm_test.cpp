// The stand-in driver's GPM (GPU Performance Monitoring) through dlopen: support only from
// Hopper, safe sample handles, metrics that follow the phase over the window between two
// samples, and per-GPU-instance sampling in MIG mode.
#include <chrono>
#include <cstring>
#include <thread>

#include "tests/integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

struct Pair {
  nvmlGpmSample_t a = nullptr, b = nullptr;
};

// Metrics IDS over the window between two samples taken by TAKE (SLEEP_MS apart).
template <class Take>
std::vector<nvmlGpmMetric_t> window(Nvml& n, Take take, int sleep_ms, std::vector<unsigned> ids) {
  Pair p;
  EXPECT_EQ(n.nvmlGpmSampleAlloc(&p.a), NVML_SUCCESS);
  EXPECT_EQ(n.nvmlGpmSampleAlloc(&p.b), NVML_SUCCESS);
  EXPECT_EQ(take(p.a), NVML_SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  EXPECT_EQ(take(p.b), NVML_SUCCESS);
  nvmlGpmMetricsGet_t get{};
  get.version = NVML_GPM_METRICS_GET_VERSION;
  get.numMetrics = static_cast<unsigned>(ids.size());
  get.sample1 = p.a;
  get.sample2 = p.b;
  for (std::size_t i = 0; i < ids.size(); ++i) get.metrics[i].metricId = ids[i];
  EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_SUCCESS);
  EXPECT_EQ(n.nvmlGpmSampleFree(p.a), NVML_SUCCESS);
  EXPECT_EQ(n.nvmlGpmSampleFree(p.b), NVML_SUCCESS);
  return std::vector<nvmlGpmMetric_t>(get.metrics, get.metrics + ids.size());
}

const std::vector<unsigned> kIds = {NVML_GPM_METRIC_GRAPHICS_UTIL, NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_ANY_TENSOR_UTIL,
                                    NVML_GPM_METRIC_DRAM_BW_UTIL};
enum { kGraphics, kSm, kTensor, kDram };

TEST(SimDriverGpm, SupportedFromHopperOnly) {
  std::string path = temp_scenario("gpus:\n  - model: H100 SXM 80GB\n  - model: A100 SXM 80GB\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h100 = nullptr, a100 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h100), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &a100), NVML_SUCCESS);
    nvmlGpmSupport_t s{};
    s.version = NVML_GPM_SUPPORT_VERSION;
    ASSERT_EQ(n.nvmlGpmQueryDeviceSupport(h100, &s), NVML_SUCCESS);
    EXPECT_EQ(s.isSupportedDevice, 1u);
    ASSERT_EQ(n.nvmlGpmQueryDeviceSupport(a100, &s), NVML_SUCCESS);
    EXPECT_EQ(s.isSupportedDevice, 0u);
    s.version = 2;
    EXPECT_EQ(n.nvmlGpmQueryDeviceSupport(h100, &s), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    nvmlGpmSample_t sample = nullptr;
    ASSERT_EQ(n.nvmlGpmSampleAlloc(&sample), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmSampleGet(a100, sample), NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(n.nvmlGpmSampleGet(h100, sample), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmSampleFree(sample), NVML_SUCCESS);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverGpm, FreedForeignAndEmptySamplesAreInvalidArguments) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "demo"}}, [](Nvml& n) {
    nvmlGpmSample_t a = nullptr, b = nullptr;
    EXPECT_EQ(n.nvmlGpmSampleAlloc(&a), NVML_ERROR_UNINITIALIZED);
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlGpmSampleAlloc(&a), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlGpmSampleAlloc(&b), NVML_SUCCESS);
    EXPECT_NE(a, b);
    nvmlGpmMetricsGet_t get{};
    get.version = NVML_GPM_METRICS_GET_VERSION;
    get.numMetrics = 1;
    get.metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
    get.sample1 = a;
    get.sample2 = b;
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_ERROR_INVALID_ARGUMENT);  // never filled
    ASSERT_EQ(n.nvmlGpmSampleGet(h, a), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlGpmSampleGet(h, b), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_SUCCESS);
    get.version = 2;
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    get.version = NVML_GPM_METRICS_GET_VERSION;
    get.numMetrics = NVML_GPM_METRIC_MAX + 1;
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_ERROR_INVALID_ARGUMENT);
    get.numMetrics = 1;
    // A pointer the driver never handed out, and one it already took back.
    long long foreign[8] = {};
    auto* bogus = reinterpret_cast<nvmlGpmSample_t>(foreign);
    EXPECT_EQ(n.nvmlGpmSampleGet(h, bogus), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlGpmSampleFree(bogus), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlGpmSampleFree(b), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmSampleFree(b), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlGpmSampleGet(h, b), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_ERROR_INVALID_ARGUMENT);
    // Samples of two different GPUs make no window.
    nvmlDevice_t h1 = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(1, &h1), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlGpmSampleAlloc(&b), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlGpmSampleGet(h1, b), NVML_SUCCESS);
    get.sample2 = b;
    EXPECT_EQ(n.nvmlGpmMetricsGet(&get), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(n.nvmlShutdown(), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmSampleFree(a), NVML_SUCCESS);  // cleanup after shutdown works
    EXPECT_EQ(n.nvmlGpmSampleFree(b), NVML_SUCCESS);
  }));
}

TEST(SimDriverGpm, MetricsFollowThePhaseOverTheWindow) {
  // time_scale 40: 500 ms of wall time is 20 scenario seconds, over two data-loader cycles.
  std::string path = temp_scenario(
      "time_scale: 40\ngpus:\n"
      "  - {model: H100 SXM 80GB, phases: [{kind: training, duration: 1h}]}\n"
      "  - {model: H100 SXM 80GB, phases: [{kind: small_kernels, duration: 1h}]}\n"
      "  - {model: H100 SXM 80GB, phases: [{kind: dataloader_starvation, duration: 1h}]}\n"
      "  - {model: H200, phases: [{kind: memory_bound, duration: 1h}]}\n"
      "  - {model: H100 SXM 80GB, phases: [{kind: idle, duration: 1h}]}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}, {"GPUWATCH_SIM_EPOCH_MS", std::to_string(now_ms())}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    std::vector<std::vector<nvmlGpmMetric_t>> m;
    for (unsigned g = 0; g < 5; ++g) {
      nvmlDevice_t h = nullptr;
      ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(g, &h), NVML_SUCCESS);
      m.push_back(window(n, [&](nvmlGpmSample_t s) { return n.nvmlGpmSampleGet(h, s); }, 500, kIds));
      for (const auto& metric : m.back()) ASSERT_EQ(metric.nvmlReturn, NVML_SUCCESS) << "gpu " << g << " metric " << metric.metricId;
    }
    EXPECT_GT(m[0][kTensor].value, 50.0);  // training: the tensor cores are busy
    EXPECT_GT(m[0][kSm].value, 80.0);
    EXPECT_GT(m[1][kGraphics].value, 90.0);  // small kernels: "100 % utilized"...
    EXPECT_LT(m[1][kSm].value, 35.0);        // ...on a few SMs, with little tensor work
    EXPECT_LT(m[1][kTensor].value, 10.0);
    EXPECT_GT(m[2][kGraphics].value, 15.0);  // data-loader starvation: busy only part of the time
    EXPECT_LT(m[2][kGraphics].value, 50.0);
    EXPECT_LT(m[2][kTensor].value, 0.6 * m[0][kTensor].value);
    EXPECT_GT(m[3][kDram].value, 80.0);  // memory-bound: DRAM saturated, tensor cores idle
    EXPECT_LT(m[3][kTensor].value, 15.0);
    for (const auto& metric : m[4]) EXPECT_EQ(metric.value, 0.0);  // idle: nothing runs
    EXPECT_STREQ(m[0][kTensor].metricInfo.unit, "%");
    EXPECT_NE(m[0][kTensor].metricInfo.shortName, nullptr);
    // Ids nvml.h does not define are invalid; NVLink is not modelled.
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
    auto odd = window(n, [&](nvmlGpmSample_t s) { return n.nvmlGpmSampleGet(h, s); }, 0,
                      {8, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, NVML_GPM_METRIC_MAX});
    EXPECT_EQ(odd[0].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(odd[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(odd[2].nvmlReturn, NVML_ERROR_INVALID_ARGUMENT);
  }));
  std::remove(path.c_str());
}

TEST(SimDriverGpm, MigGpuInstancesAreSampledThroughTheParent) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "mig"}}, [](Nvml& n) {
    ASSERT_EQ(n.nvmlInit_v2(), NVML_SUCCESS);
    nvmlDevice_t a100 = nullptr, h100 = nullptr, mig = nullptr;
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(0, &a100), NVML_SUCCESS);
    ASSERT_EQ(n.nvmlDeviceGetHandleByIndex_v2(2, &h100), NVML_SUCCESS);  // training in GPU instances 1 and 2
    ASSERT_EQ(n.nvmlDeviceGetMigDeviceHandleByIndex(h100, 0, &mig), NVML_SUCCESS);
    unsigned gi = 0;
    ASSERT_EQ(n.nvmlDeviceGetGpuInstanceId(mig, &gi), NVML_SUCCESS);
    EXPECT_EQ(gi, 1u);
    nvmlGpmSample_t s = nullptr;
    ASSERT_EQ(n.nvmlGpmSampleAlloc(&s), NVML_SUCCESS);
    EXPECT_EQ(n.nvmlGpmSampleGet(h100, s), NVML_ERROR_NOT_SUPPORTED);  // MIG mode: per instance only
    EXPECT_EQ(n.nvmlGpmMigSampleGet(h100, 9, s), NVML_ERROR_NOT_FOUND);
    EXPECT_EQ(n.nvmlGpmMigSampleGet(mig, 1, s), NVML_ERROR_INVALID_ARGUMENT);  // the parent's handle is wanted
    EXPECT_EQ(n.nvmlGpmMigSampleGet(a100, 1, s), NVML_ERROR_NOT_SUPPORTED);   // Ampere: no GPM
    EXPECT_EQ(n.nvmlGpmSampleFree(s), NVML_SUCCESS);
    auto busy = window(n, [&](nvmlGpmSample_t x) { return n.nvmlGpmMigSampleGet(h100, 1, x); }, 150, kIds);
    auto idle = window(n, [&](nvmlGpmSample_t x) { return n.nvmlGpmMigSampleGet(h100, 3, x); }, 150, kIds);
    EXPECT_GT(busy[kTensor].value, 50.0);
    EXPECT_EQ(idle[kTensor].nvmlReturn, NVML_SUCCESS);
    EXPECT_EQ(idle[kTensor].value, 0.0);  // no process in GPU instance 3: measured idle, not absent
  }));
}

}  // namespace
}  // namespace gpuwatch::sim::testing
