#include "notify/group.hpp"

#include <gtest/gtest.h>

#include "unit/notify/notify_fixture.hpp"

namespace gpuwatch::notify {
namespace {

using alerts::EventKind;
using alerts::Severity;
using testing::make_event;

TEST(NotifyGroup, OneGroupPerHostInOrder) {
  const auto groups = group_by_host({make_event(EventKind::Firing, "A", Severity::Warning, 0, "b-host"),
                                     make_event(EventKind::Firing, "B", Severity::Warning, 1, "a-host"),
                                     make_event(EventKind::Resolved, "C", Severity::Warning, 2, "b-host")});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].host, "b-host");
  ASSERT_EQ(groups[0].events.size(), 2u);
  EXPECT_EQ(groups[0].events[1].alert.rule, "C");
  EXPECT_EQ(groups[1].host, "a-host");
}

TEST(NotifyGroup, ChannelFiltersSeverityResolvedAndRepeat) {
  const Group group{"h",
                    {make_event(EventKind::Firing, "Info", Severity::Info, 0, "h"),
                     make_event(EventKind::Firing, "Warn", Severity::Warning, 0, "h"),
                     make_event(EventKind::Repeat, "Crit", Severity::Critical, 0, "h"),
                     make_event(EventKind::Resolved, "Warn2", Severity::Warning, 0, "h")}};
  Channel all;
  EXPECT_EQ(filter_for(all, group).events.size(), 4u);
  Channel picky;
  picky.min_severity = Severity::Warning;
  picky.send_resolved = false;
  picky.send_repeat = false;
  const auto kept = filter_for(picky, group);
  ASSERT_EQ(kept.events.size(), 1u);
  EXPECT_EQ(kept.events[0].alert.rule, "Warn");
  EXPECT_TRUE(any_firing(group));
  EXPECT_FALSE(any_firing(Group{"h", {group.events[3]}}));
  EXPECT_EQ(highest_severity(group), Severity::Critical);
}

TEST(NotifyGroup, JsonRoundTripKeepsWhatThePayloadsUse) {
  const Group group{"node-1",
                    {make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3),
                     make_event(EventKind::Resolved, "GpuLost", Severity::Warning, std::nullopt)}};
  auto back = group_from_json(nlohmann::json::parse(group_to_json(group).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->host, "node-1");
  ASSERT_EQ(back->events.size(), 2u);
  EXPECT_EQ(back->events[0].kind, EventKind::Firing);
  EXPECT_EQ(back->events[1].kind, EventKind::Resolved);
  EXPECT_EQ(back->events[0].alert.fingerprint(), group.events[0].alert.fingerprint());
  EXPECT_EQ(back->events[0].alert.labels, group.events[0].alert.labels);
  EXPECT_EQ(back->events[0].alert.annotations, group.events[0].alert.annotations);
  EXPECT_EQ(back->events[0].alert.fired_at, group.events[0].alert.fired_at);
  EXPECT_FALSE(back->events[1].alert.gpu);
  EXPECT_EQ(back->events[1].alert.resolved_at, group.events[1].alert.resolved_at);
  EXPECT_FALSE(group_from_json(nlohmann::json{{"host", "x"}}));
  EXPECT_FALSE(group_from_json(nlohmann::json{{"host", "x"}, {"events", {{{"event", "exploded"}}}}}));
}

}  // namespace
}  // namespace gpuwatch::notify
