#include "tui/remote_source.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::tui {
namespace {

remote::RemoteState answered() {
  remote::RemoteState s;
  s.name = "gpu1:9835";
  s.answered = true;
  s.has_snapshot = true;
  s.last.snapshot.devices.resize(2);
  for (unsigned i = 0; i < 2; ++i) {
    s.last.snapshot.devices[i].index = i;
    s.last.snapshot.devices[i].get(core::FieldId::UtilizationGpu) = core::FieldReading::of(0.5);
  }
  core::ProcessSample p;
  p.pid = 7;
  s.last.snapshot.devices[1].processes.push_back(p);
  s.last.status = {{true, true, 0.1, 0}, {true, true, 0.1, 0}};
  s.last.users[7] = "carol";
  return s;
}

TEST(RemoteSource, GpusAndProcessesAreNamedByTheirHost) {
  Model m;
  add_remote(answered(), m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[1].host, "gpu1:9835");
  EXPECT_EQ(m.gpus[1].health, GpuHealth::Up);
  ASSERT_EQ(m.processes.size(), 1u);
  EXPECT_EQ(m.processes[0].host, "gpu1:9835");
  EXPECT_EQ(m.processes[0].user, "carol");
  EXPECT_FALSE(m.processes[0].cpu_ratio.has_value());  // not known from afar: N/A
}

TEST(RemoteSource, AHostThatStopsAnsweringIsDownWithItsLastValues) {
  auto s = answered();
  s.answered = false;
  s.error = "no answer: Connection";
  s.age_seconds = 4.2;
  Model m;
  add_remote(s, m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].health, GpuHealth::Down);
  EXPECT_NE(m.gpus[0].error.find("no answer"), std::string::npos);
  EXPECT_NE(m.gpus[0].error.find("4s ago"), std::string::npos);
  EXPECT_TRUE(m.processes.empty());
}

TEST(RemoteSource, AHostThatNeverAnsweredIsOneDownRow) {
  remote::RemoteState s;
  s.name = "gpu9:9835";
  s.error = "no answer: Connection";
  Model m;
  add_remote(s, m);
  ASSERT_EQ(m.gpus.size(), 1u);
  EXPECT_EQ(m.gpus[0].health, GpuHealth::Down);
  EXPECT_EQ(m.gpus[0].host, "gpu9:9835");
}

TEST(RemoteSource, TheTitleSaysHowManyHostsAreUpAndWhichArePolled) {
  auto streaming = answered();
  streaming.streaming = true;
  auto polled = answered();  // answers, but its stream was refused
  auto gone = answered();
  gone.answered = false;     // answered once, then stopped
  remote::RemoteState never;  // never answered
  EXPECT_EQ(hosts_note({streaming, streaming}), "all up");
  EXPECT_EQ(hosts_note({streaming, polled}), "all up (1 polled)");
  EXPECT_EQ(hosts_note({streaming, gone}), "1 up, 1 down");
  EXPECT_EQ(hosts_note({polled, gone, never}), "1 up, 2 down (1 polled)");
  EXPECT_EQ(hosts_note({never}), "0 up, 1 down");
}

}  // namespace
}  // namespace gpuwatch::tui
