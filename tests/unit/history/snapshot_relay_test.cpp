// The hand-off between the thread that reads a recorded window and the one that diagnoses it:
// every snapshot arrives once, in order, with its own values, whatever the two threads' pace;
// the reader gets devices back to reuse.
#include "history/snapshot_relay.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gpuwatch::history {
namespace snapshot_relay_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Snapshot snapshot_of(unsigned gpus) {
  core::Snapshot s;
  for (unsigned i = 0; i < gpus; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-") + std::to_string(i));
    s.devices.push_back(std::move(d));
  }
  s.device_count = gpus;
  return s;
}

TEST(HistorySnapshotRelay, EverySnapshotOnceInOrderWithItsValues) {
  constexpr int kCount = 5000;
  SnapshotRelay relay(8);
  std::size_t reused = 0;
  std::thread reader([&] {
    core::Snapshot s = snapshot_of(4);  // one snapshot reused row after row, as the store's reader does
    for (int n = 0; n < kCount; ++n) {
      // Another GPU set now and then: that one is copied, not swapped.
      if (n % 1000 == 999) s = snapshot_of(3);
      if (n % 1000 == 0 && s.devices.size() == 3) s = snapshot_of(4);
      s.timestamp = std::chrono::system_clock::time_point(std::chrono::seconds(n));
      for (auto& d : s.devices) d.get(core::FieldId::UtilizationGpu) = core::FieldReading::of(static_cast<double>(n));
      const auto* before = s.devices.data();
      relay.push(s);
      EXPECT_EQ(s.devices.size(), s.device_count);  // still a snapshot of the same GPUs for the reader
      if (s.devices.data() != before) ++reused;
    }
    relay.close();
  });
  int expected = 0;
  while (core::Snapshot* s = relay.next()) {
    if (expected % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // a slower diagnoser
    ASSERT_EQ(s->timestamp, std::chrono::system_clock::time_point(std::chrono::seconds(expected)));
    ASSERT_EQ(s->devices.size(), expected % 1000 == 999 ? 3U : 4U);
    for (const auto& d : s->devices) ASSERT_EQ(*d.get(core::FieldId::UtilizationGpu).as_double(), expected);
    ++expected;
  }
  reader.join();
  EXPECT_EQ(expected, kCount);
  EXPECT_GT(reused, kCount / 2U);  // in the steady state the reader reuses diagnosed devices
}

TEST(HistorySnapshotRelay, ClosedEmptyEndsAtOnce) {
  SnapshotRelay relay;
  relay.close();
  EXPECT_EQ(relay.next(), nullptr);
}

}  // namespace snapshot_relay_test
}  // namespace gpuwatch::history
