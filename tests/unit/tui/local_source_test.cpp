#include "tui/local_source.hpp"

#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::tui {
namespace local_source_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::eventually;
using testing::thread_count;

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

std::atomic<bool> g_hang{false};

nvml::NvmlFunctions hanging(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t, int, unsigned* c) {
    auto give_up = Steady::now() + 10s;
    while (g_hang && Steady::now() < give_up) std::this_thread::sleep_for(1ms);
    *c = 42;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}



// Every thread `top` keeps wakes once an interval at most, and there are as few as can be: the
// sampling pool, its watchdog (asleep until a sample overruns) and /proc. The diagnose engine runs
// in read(), on the caller's thread, not on one of its own.
TEST(LocalSource, TheDiagnosisRunsInReadWithoutAThreadOfItsOwn) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  testing::active_fake() = &fake;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  (void)thread_count();  // any lazily started helper thread (TSan's) before counting
  const int before = thread_count();
  LocalSource source(api, 20ms, 200ms);
  source.start();
  EXPECT_EQ(thread_count() - before, 3);  // pool, watchdog, /proc
  EXPECT_TRUE(eventually([&] {
    Model m = source.read();
    return m.gpus.size() == 2 && m.gpus[0].health == GpuHealth::Up && m.gpus[1].health == GpuHealth::Up;
  }));
  EXPECT_TRUE(source.stop());
  testing::active_fake() = nullptr;
}

// The UI thread's read() answers at once while a GPU's NVML call hangs, and that GPU turns
// stale with a growing age while the other stays up.
TEST(LocalSource, AHungGpuIsStaleAndReadNeverWaitsForIt) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  testing::active_fake() = &fake;
  nvml::NvmlBackend api(hanging(fake));
  LocalSource source(api, 20ms, 200ms);
  source.start();
  ASSERT_TRUE(eventually([&] {
    Model m = source.read();
    return m.gpus.size() == 2 && m.gpus[0].health == GpuHealth::Up && m.gpus[1].health == GpuHealth::Up;
  }));
  EXPECT_EQ(source.read().gpus[0].temperature_c, 42.0);
  g_hang = true;  // both GPUs' temperature calls hang now
  Steady::duration slowest{};
  bool stale = eventually([&] {
    auto t0 = Steady::now();
    Model m = source.read();
    slowest = std::max(slowest, Steady::now() - t0);
    return m.gpus[1].health == GpuHealth::Stale && m.gpus[1].age_seconds > 0.2;
  }, 3000ms);
  EXPECT_TRUE(stale);
  EXPECT_LT(slowest, 50ms);  // never waits for NVML
  g_hang = false;
  EXPECT_TRUE(eventually([&] { return source.read().gpus[1].health == GpuHealth::Up; }));
  EXPECT_TRUE(source.stop());
  testing::active_fake() = nullptr;
}

}  // namespace local_source_test
}  // namespace gpuwatch::tui
