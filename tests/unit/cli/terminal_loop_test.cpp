#include "cli/terminal_loop.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gpuwatch::cli {
namespace {

TEST(TerminalLoop, ParsesGpuIndexLists) {
  EXPECT_EQ(parse_gpu_indices("0").value(), (std::vector<unsigned>{0}));
  EXPECT_EQ(parse_gpu_indices("0,2,7").value(), (std::vector<unsigned>{0, 2, 7}));
  EXPECT_FALSE(parse_gpu_indices("").has_value());
  EXPECT_FALSE(parse_gpu_indices("0,,1").has_value());
  EXPECT_FALSE(parse_gpu_indices("GPU-1234").has_value());
  EXPECT_FALSE(parse_gpu_indices("-1").has_value());
  EXPECT_FALSE(parse_gpu_indices("1x").has_value());
}

TEST(TerminalLoop, TickerStaysOnItsGridWhenWorkTakesTime) {
  using namespace std::chrono;
  const steady_clock::time_point t0{};
  const auto period = duration_cast<steady_clock::duration>(milliseconds(20));
  // A sample that took 5 ms: the next tick is still t0 + 20 ms, not 25 ms.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + milliseconds(5), period), t0 + period);
  // Waking exactly on a tick: sleep to the following one.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + period, period), t0 + 2 * period);
  // A sample that overran two ticks (45 ms): skip them, stay on the grid at 60 ms.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + milliseconds(45), period), t0 + 3 * period);
}

TEST(TerminalLoop, TickerWaitsAtLeastOnePeriod) {
  using namespace std::chrono;
  auto start = steady_clock::now();
  Ticker ticker(milliseconds(20));
  ticker.wait();
  ticker.wait();
  // Only a lower bound: an upper bound on wall time would be flaky on a loaded machine.
  EXPECT_GE(duration_cast<milliseconds>(steady_clock::now() - start).count(), 40);
}

TEST(TerminalLoop, MissingLibraryGivesNoLibrary) {
  GlobalOptions global;
  global.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_EQ(open_nvml_for_command(global), nullptr);
}

}  // namespace
}  // namespace gpuwatch::cli

namespace gpuwatch::cli {
namespace {

core::Snapshot identities() {
  core::Snapshot s;
  for (unsigned i = 0; i < 3; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(core::FieldId::Uuid) = core::FieldReading::of(fmt::format("GPU-{}aaa-bbbb", i + 1));
    d.get(core::FieldId::PciBusId) = core::FieldReading::of(fmt::format("00000000:{:02X}:00.0", 0x18 + i * 0x10));
    s.devices.push_back(d);
  }
  return s;
}

TEST(TerminalLoop, ResolvesIndicesUuidsAndBusIdsLikeNvidiaSmi) {
  auto s = identities();
  EXPECT_EQ(resolve_gpu_ids("2,GPU-1aaa-bbbb", s).value(), (std::vector<unsigned>{2, 0}));
  EXPECT_EQ(resolve_gpu_ids("gpu-2aaa", s).value(), (std::vector<unsigned>{1}));           // unique prefix
  EXPECT_EQ(resolve_gpu_ids("00000000:38:00.0", s).value(), (std::vector<unsigned>{2}));
  EXPECT_EQ(resolve_gpu_ids("28:00.0", s).value(), (std::vector<unsigned>{1}));            // without the domain
  EXPECT_FALSE(resolve_gpu_ids("GPU-9", s).has_value());
  EXPECT_FALSE(resolve_gpu_ids("GPU-", s).has_value());                                    // ambiguous / too short
  EXPECT_FALSE(resolve_gpu_ids("", s).has_value());
}

}  // namespace
}  // namespace gpuwatch::cli
