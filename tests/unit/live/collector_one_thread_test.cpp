// CollectorOptions::one_thread: every GPU sampled by one thread, and a hung GPU still never
// stalls the others (it keeps that thread; a new one samples the rest).
#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "live/collector.hpp"
#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::live {
namespace collector_one_thread_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::eventually;
using testing::thread_count;

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

// While set, GPU 0's temperature call blocks (a hung NVML call), at most 10 s.
std::atomic<bool> g_hang_gpu0{false};

nvml::NvmlFunctions functions(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t device, int, unsigned* c) {
    const bool gpu0 = reinterpret_cast<std::uintptr_t>(device) == 1;  // the fake's handles are index + 1
    auto give_up = Steady::now() + 10s;
    while (gpu0 && g_hang_gpu0 && Steady::now() < give_up) std::this_thread::sleep_for(1ms);
    *c = 42;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}


std::vector<DeviceStatus> statuses(const Collector& collector) {
  std::vector<DeviceStatus> out;
  collector.with_view([&](const LiveView& view) { out = view.status; });
  return out;
}


CollectorOptions options() {
  CollectorOptions o;
  o.interval = 20ms;
  o.stale_after = 200ms;
  o.one_thread = true;
  return o;
}

TEST(CollectorOneThread, HangBudgetIsAQuarterIntervalWithinBounds) {
  EXPECT_EQ(pool_hang_budget(1000ms), 250ms);
  EXPECT_EQ(pool_hang_budget(20ms), 50ms);
  EXPECT_EQ(pool_hang_budget(60000ms), 1000ms);
}

TEST(CollectorOneThread, SamplesEveryGpuFromOneThread) {
  testing::FakeNvml fake;
  fake.devices.resize(4);
  nvml::NvmlBackend api(functions(fake));
  g_hang_gpu0 = false;
  // ThreadSanitizer starts a thread of its own at the first thread created: let it, then count.
  std::thread([] {}).join();
  const int before = thread_count();
  Collector collector(api, options());
  collector.start();
  EXPECT_EQ(thread_count() - before, 2);  // the pool and its (sleeping) watchdog, not one per GPU
  ASSERT_TRUE(eventually([&] { return collector.ready(); }));
  for (const auto& s : statuses(collector)) EXPECT_TRUE(s.up);
  EXPECT_TRUE(collector.stop(2s));
}

TEST(CollectorOneThread, AHungGpuMovesToAThreadOfItsOwnAndTheOthersGoOn) {
  testing::FakeNvml fake;
  fake.devices.resize(3);
  nvml::NvmlBackend api(functions(fake));
  g_hang_gpu0 = false;
  Collector collector(api, options());
  collector.start();
  ASSERT_TRUE(eventually([&] {
    auto s = statuses(collector);
    return collector.ready() && s[0].up && s[1].up && s[2].up;
  }));

  g_hang_gpu0 = true;
  ASSERT_TRUE(eventually([&] { return !statuses(collector)[0].up; }, 3000ms));
  // Well past the stale limit: GPUs 1 and 2 are still sampled, fresh, every interval.
  std::this_thread::sleep_for(400ms);
  auto s = statuses(collector);
  EXPECT_FALSE(s[0].up);
  EXPECT_GT(s[0].sample_age_seconds, 0.2);
  for (int g : {1, 2}) {
    EXPECT_TRUE(s[g].up) << g;
    EXPECT_LT(s[g].sample_age_seconds, 0.15) << g;
  }
  EXPECT_FALSE(collector.stop(50ms));  // GPU 0's thread is still inside NVML

  g_hang_gpu0 = false;  // the call returns: that thread finishes its sample and ends
  EXPECT_TRUE(collector.stop(2s));
}

TEST(CollectorOneThread, AHungGpuRecoversOnItsOwnThread) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(functions(fake));
  g_hang_gpu0 = false;
  Collector collector(api, options());
  collector.start();
  ASSERT_TRUE(eventually([&] { return collector.ready() && statuses(collector)[0].up; }));
  g_hang_gpu0 = true;
  ASSERT_TRUE(eventually([&] { return !statuses(collector)[0].up; }, 3000ms));
  g_hang_gpu0 = false;
  EXPECT_TRUE(eventually([&] {
    auto s = statuses(collector);
    return s[0].up && s[0].sample_age_seconds < 0.15 && s[1].up;
  }, 3000ms));
  EXPECT_TRUE(collector.stop(2s));
}

}  // namespace collector_one_thread_test
}  // namespace gpuwatch::live
