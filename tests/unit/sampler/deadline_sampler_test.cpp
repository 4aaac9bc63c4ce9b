// issue 16: one hung GPU never stalls a one-shot command (status, query, dmon, pmon).
#include "sampler/deadline_sampler.hpp"

#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "backend/abandoned_calls.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::sampler {
namespace deadline_sampler_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using core::FieldId;
using core::FieldStatus;
using Steady = std::chrono::steady_clock;

// While set, GPU 1's temperature call blocks (a hung NVML call), at most 5 s.
std::atomic<bool> g_hang_gpu1{false};

nvml::NvmlFunctions gpu1_hangs(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t device, int, unsigned* c) {
    if (reinterpret_cast<std::uintptr_t>(device) == 2) {  // the fake's handle of GPU 1
      auto give_up = Steady::now() + 5s;
      while (g_hang_gpu1 && Steady::now() < give_up) std::this_thread::sleep_for(1ms);
    }
    *c = 42;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}

SampleOptions options_of(std::vector<FieldId> fields) {
  SampleOptions o;
  o.fields = std::move(fields);
  return o;
}

TEST(DeadlineSampler, AnswersLikeTheSamplerWhenEveryGpuAnswers) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  DeadlineSampler sampler(api, 2000ms);
  auto snap = sampler.sample(options_of({FieldId::TemperatureGpu, FieldId::Name, FieldId::Count}));
  ASSERT_EQ(snap.devices.size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    EXPECT_EQ(snap.devices[i].index, i);
    EXPECT_EQ(snap.devices[i].state, core::DeviceState::Ok);
    EXPECT_EQ(snap.devices[i].get(FieldId::TemperatureGpu).as_int(), 42);
    EXPECT_EQ(snap.devices[i].get(FieldId::Count).as_uint(), 2u);
  }
  EXPECT_EQ(backend::abandoned_calls(), 0);
}

TEST(DeadlineSampler, AHungGpuIsTimedOutAndTheOthersAnswerInTime) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(gpu1_hangs(fake));
  DeadlineSampler sampler(api, 200ms);
  g_hang_gpu1 = true;
  const auto options = options_of({FieldId::TemperatureGpu, FieldId::Name, FieldId::Count});
  auto started = Steady::now();
  auto snap = sampler.sample(options);
  auto took = Steady::now() - started;
  EXPECT_LT(took, 1500ms);
  ASSERT_EQ(snap.devices.size(), 2u);
  EXPECT_EQ(snap.devices[0].state, core::DeviceState::Ok);
  EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
  EXPECT_EQ(snap.devices[1].index, 1u);
  EXPECT_EQ(snap.devices[1].state, core::DeviceState::TimedOut);
  // Absent, never zero: Failed with NVML's timeout code, "[Timeout]" in CSV.
  EXPECT_FALSE(snap.devices[1].get(FieldId::TemperatureGpu).ok());
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).status, FieldStatus::Failed);
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).vendor_code, NVML_ERROR_TIMEOUT);
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).reason, core::ErrorReason::Timeout);
  EXPECT_EQ(snap.error_string(NVML_ERROR_TIMEOUT), "Timeout");
  EXPECT_EQ(snap.devices[1].get(FieldId::Count).as_uint(), 2u);  // system fields from the snapshot
  EXPECT_EQ(backend::abandoned_calls(), 1);

  // The next sample does not ask the hung GPU again (no second thread stuck), and answers in time.
  started = Steady::now();
  snap = sampler.sample(options);
  EXPECT_LT(Steady::now() - started, 1500ms);
  EXPECT_EQ(snap.devices[0].state, core::DeviceState::Ok);
  EXPECT_EQ(snap.devices[1].state, core::DeviceState::TimedOut);
  EXPECT_EQ(backend::abandoned_calls(), 1);

  // The driver answers again: the thread comes back, and the GPU is sampled again.
  g_hang_gpu1 = false;
  auto give_up = Steady::now() + 5s;
  while (backend::abandoned_calls() != 0 && Steady::now() < give_up) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(backend::abandoned_calls(), 0);
  snap = sampler.sample(options);
  EXPECT_EQ(snap.devices[1].state, core::DeviceState::Ok);
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).as_int(), 42);
}

// issue 26: the watch loops (status -i, query -l, dmon, pmon) sample through one long-lived thread
// per GPU, not a new thread per GPU per sample (48 clone3 in 6 s of dmon made it 13x hungrier).
std::mutex g_callers_mutex;
std::set<long> g_callers;  // the kernel thread ids that asked for a temperature

TEST(DeadlineSampler, issue_26_each_gpu_keeps_one_thread_across_samples) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t, int, unsigned* c) {
    std::lock_guard lock(g_callers_mutex);
    g_callers.insert(static_cast<long>(::syscall(SYS_gettid)));
    *c = 42;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  nvml::NvmlBackend api(f);
  {
    DeadlineSampler sampler(api, 2000ms);
    for (int i = 0; i < 20; ++i) {
      auto snap = sampler.sample(options_of({FieldId::TemperatureGpu}));
      ASSERT_EQ(snap.devices.size(), 2u);
      EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).as_int(), 42);
    }
  }  // the destructor joins the idle workers
  std::lock_guard lock(g_callers_mutex);
  EXPECT_EQ(g_callers.size(), 2u) << "a thread per GPU, kept across the 20 samples";
  EXPECT_EQ(g_callers.count(static_cast<long>(::syscall(SYS_gettid))), 0u) << "not sampled on the caller's thread";
}

TEST(DeadlineSampler, TimedOutDeviceHasEveryWantedFieldAbsent) {
  auto device = timed_out_device(3, {FieldId::PowerDraw, FieldId::MemoryUsed}, {core::ErrorReason::Timeout, NVML_ERROR_TIMEOUT});
  EXPECT_EQ(device.index, 3u);
  EXPECT_EQ(device.state, core::DeviceState::TimedOut);
  EXPECT_EQ(device.get(FieldId::PowerDraw).status, FieldStatus::Failed);
  EXPECT_EQ(device.get(FieldId::MemoryUsed).vendor_code, NVML_ERROR_TIMEOUT);
  EXPECT_EQ(device.get(FieldId::Name).status, FieldStatus::NotRead);  // not asked
  EXPECT_EQ(device.processes_status, FieldStatus::Failed);
  EXPECT_STREQ(core::to_string(device.state), "timed_out");
}

}  // namespace deadline_sampler_test
}  // namespace gpuwatch::sampler
