// The Xid watcher over a fake event API: counts per (GPU, Xid), GPUs without event support
// get nothing, the wait is bounded, and a hung wait never blocks readers.
#include "live/xid_watcher.hpp"

#include "live/collector.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::live {
namespace xid_watcher_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;

// The fake driver's event queue (one set at a time).
struct FakeEvents {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::pair<unsigned, unsigned long long>> queue;  // (GPU index, Xid)
  std::vector<bool> supported;                                // per GPU
  std::vector<unsigned> registered;
  bool hang = false;      // the wait blocks until released
  bool released = false;
  std::atomic<int> waits{0};
  std::atomic<int> frees{0};
  unsigned last_timeout_ms = 0;
};
FakeEvents* g_events = nullptr;

nvml::NvmlFunctions event_functions(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlEventSetCreate = [](nvmlEventSet_t* set) {
    *set = reinterpret_cast<nvmlEventSet_t>(std::uintptr_t{0x5e7});
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlEventSetFree = [](nvmlEventSet_t) {
    ++g_events->frees;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetSupportedEventTypes = [](nvmlDevice_t d, unsigned long long* types) {
    auto i = reinterpret_cast<std::uintptr_t>(d) - 1;
    *types = g_events->supported.at(i) ? (nvmlEventTypeXidCriticalError | nvmlEventTypePState) : 0ULL;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceRegisterEvents = [](nvmlDevice_t d, unsigned long long types, nvmlEventSet_t) {
    if (types != nvmlEventTypeXidCriticalError) return nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
    std::lock_guard lock(g_events->mutex);
    g_events->registered.push_back(static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d) - 1));
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlEventSetWait_v2 = [](nvmlEventSet_t, nvmlEventData_t* data, unsigned timeout_ms) {
    ++g_events->waits;
    std::unique_lock lock(g_events->mutex);
    g_events->last_timeout_ms = timeout_ms;
    if (g_events->hang) {
      g_events->cv.wait(lock, [] { return g_events->released; });
      return nvmlReturn_t{NVML_ERROR_TIMEOUT};
    }
    if (!g_events->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), [] { return !g_events->queue.empty(); }))
      return nvmlReturn_t{NVML_ERROR_TIMEOUT};
    auto [gpu, xid] = g_events->queue.front();
    g_events->queue.pop_front();
    data->device = reinterpret_cast<nvmlDevice_t>(static_cast<std::uintptr_t>(gpu + 1));
    data->eventType = nvmlEventTypeXidCriticalError;
    data->eventData = xid;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}

struct Fixture {
  testing::FakeNvml fake;
  FakeEvents events;
  nvml::NvmlBackend api;
  explicit Fixture(std::vector<bool> supported)
      : api((fake.devices.resize(supported.size()), g_events = &events, events.supported = supported,
             event_functions(fake))) {}
  void push(unsigned gpu, unsigned long long xid) {
    std::lock_guard lock(events.mutex);
    events.queue.emplace_back(gpu, xid);
    events.cv.notify_all();
  }
};


TEST(XidWatcher, CountsPerGpuAndXidWithTheTimeReceived) {
  Fixture f({true, false, true});
  XidWatcher watcher(f.api, {100ms, 50ms});
  watcher.start(3);
  ASSERT_TRUE(testing::eventually([&] { return watcher.watched_gpus().size() == 2; }));
  EXPECT_EQ(watcher.watched_gpus(), (std::vector<unsigned>{0, 2}));  // GPU 1 has no Xid events
  EXPECT_TRUE(watcher.counts().empty());                             // nothing seen: no series
  double before = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  f.push(2, 31);
  f.push(0, 48);
  f.push(2, 31);
  ASSERT_TRUE(testing::eventually([&] { return watcher.counts().size() == 2 && watcher.counts()[1].count == 2; }));
  auto counts = watcher.counts();
  EXPECT_EQ(counts[0].gpu, 0u);
  EXPECT_EQ(counts[0].xid, 48u);
  EXPECT_EQ(counts[0].count, 1u);
  EXPECT_EQ(counts[1].gpu, 2u);
  EXPECT_EQ(counts[1].xid, 31u);
  EXPECT_EQ(counts[1].count, 2u);
  EXPECT_GE(counts[1].last_seen_unix_s, before);
  {
    std::lock_guard lock(f.events.mutex);
    EXPECT_EQ(f.events.last_timeout_ms, 100u);  // the bounded wait
  }
  EXPECT_TRUE(watcher.stop(2s));
  EXPECT_EQ(f.events.frees.load(), 1);
}

TEST(XidWatcher, NoGpuSupportsEventsMeansNoThreadWork) {
  Fixture f({false, false});
  XidWatcher watcher(f.api, {100ms, 50ms});
  watcher.start(2);
  EXPECT_TRUE(watcher.stop(2s));  // exits at once: nothing to wait for
  EXPECT_TRUE(watcher.watched_gpus().empty());
  EXPECT_EQ(f.events.waits.load(), 0);
  EXPECT_TRUE(watcher.counts().empty());
}

TEST(XidWatcher, AHungWaitBlocksNeitherReadersNorStopBeyondItsTimeout) {
  Fixture f({true});
  f.events.hang = true;
  auto watcher = std::make_unique<XidWatcher>(f.api, XidWatcherOptions{100ms, 50ms});
  watcher->start(1);
  ASSERT_TRUE(testing::eventually([&] { return f.events.waits.load() == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(watcher->counts().empty());  // answers while the thread is stuck in NVML
  EXPECT_FALSE(watcher->stop(50ms));       // gives up on the stuck call
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  {
    std::lock_guard lock(f.events.mutex);
    f.events.released = true;
    f.events.cv.notify_all();
  }
  EXPECT_TRUE(watcher->stop(2s));  // once the driver answers, the thread ends
  watcher.reset();
}

TEST(XidWatcher, TheCollectorShowsItsCountsInEveryView) {
  Fixture f({true, true});
  CollectorOptions options;
  options.interval = 50ms;
  options.xid_events = true;
  Collector collector(f.api, options);
  collector.start();
  ASSERT_TRUE(testing::eventually([&] {
    std::lock_guard lock(f.events.mutex);
    return f.events.registered.size() == 2;
  }));
  f.push(1, 79);
  std::vector<XidCount> seen;
  ASSERT_TRUE(testing::eventually([&] {
    collector.with_view([&](const LiveView& view) { seen = view.xid_events; });
    return !seen.empty();
  }));
  EXPECT_EQ(seen[0].gpu, 1u);
  EXPECT_EQ(seen[0].xid, 79u);
  EXPECT_TRUE(collector.stop(2s));
}

}  // namespace xid_watcher_test
}  // namespace gpuwatch::live
