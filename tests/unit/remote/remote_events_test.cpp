#include "remote/remote_events.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "exporter/json_api.hpp"
#include "live/sample_history.hpp"

namespace gpuwatch::remote {
namespace remote_events_test {  // this test file's helpers (unity builds: no clash with another file's)

// What serve sends (json_api.cpp's sample_event) for GPU INDEX at 40 % utilization, no fan.
std::string event_text(unsigned index, std::uint64_t seq) {
  core::DeviceSnapshot device;
  device.index = index;
  device.get(core::FieldId::UtilizationGpu) = core::FieldReading::of(0.4);
  device.get(core::FieldId::MemoryUsed) = core::FieldReading::of(std::uint64_t{3} << 30);
  device.get(core::FieldId::TemperatureGpu) = core::FieldReading::of(std::uint64_t{71});
  live::HistoryRow row = live::make_history_row(device, std::chrono::system_clock::now());
  row.seq = seq;
  return "retry: 2000\n\n" + exporter::sample_event(row) + ": keep-alive\n\n";
}

RemoteSnapshot two_gpus() {
  RemoteSnapshot s;
  s.snapshot.devices.resize(2);
  s.status.resize(2);
  for (unsigned i = 0; i < 2; ++i) {
    s.snapshot.devices[i].index = i;
    s.snapshot.devices[i].get(core::FieldId::Name) = core::FieldReading::of(std::string("H100"));
    s.snapshot.devices[i].get(core::FieldId::UtilizationGpu) = core::FieldReading::of(0.9);
    s.snapshot.devices[i].get(core::FieldId::FanSpeed) = core::FieldReading::of(0.3);
    s.status[i] = {true, false, 12.0, 0.01};
  }
  return s;
}

TEST(SseParser, EventsComeWholeHoweverTheBytesAreSplit) {
  const std::string text = event_text(1, 7) + event_text(0, 8);
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{64}, text.size()}) {
    SseParser parser;
    std::vector<ServerSentEvent> events;
    for (std::size_t at = 0; at < text.size(); at += piece) {
      for (auto& e : parser.feed(std::string_view(text).substr(at, piece))) events.push_back(std::move(e));
    }
    ASSERT_EQ(events.size(), 2u) << "pieces of " << piece;  // retry: and the keep-alive comment are no events
    EXPECT_EQ(events[0].type, "sample");
    EXPECT_EQ(events[0].id, "7");
    EXPECT_EQ(events[1].id, "8");
    EXPECT_EQ(events[0].data.front(), '{');
    EXPECT_EQ(events[0].data.back(), '}');
    EXPECT_FALSE(parser.overflowed());
  }
}

TEST(SseParser, CrLfMultiLineDataAndDefaultType) {
  SseParser parser;
  auto events = parser.feed("data: a\r\ndata:b\r\n\r\nevent: alert\ndata: {}\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "message");
  EXPECT_EQ(events[0].data, "a\nb");
  EXPECT_EQ(events[1].type, "alert");
  EXPECT_TRUE(parser.feed("data: unfinished\n").empty());  // no blank line yet
}

TEST(SseParser, AnEndlessLineIsDroppedAndSaysSo) {
  SseParser parser;
  std::string chunk(64 * 1024, 'x');
  for (int i = 0; i < 20 && !parser.overflowed(); ++i) parser.feed(chunk);
  EXPECT_TRUE(parser.overflowed());
}

TEST(RemoteEvents, ASampleEventUpdatesItsGpuOnly) {
  RemoteSnapshot last = two_gpus();
  SseParser parser;
  auto events = parser.feed(event_text(1, 42));
  ASSERT_EQ(events.size(), 1u);
  auto seq = apply_sample_event(events[0].data, last);
  ASSERT_TRUE(seq) << seq.error().message;
  EXPECT_EQ(*seq, 42u);
  const auto& gpu1 = last.snapshot.devices[1];
  EXPECT_DOUBLE_EQ(*gpu1.get(core::FieldId::UtilizationGpu).as_double(), 0.4);
  EXPECT_DOUBLE_EQ(*gpu1.get(core::FieldId::MemoryUsed).as_double(), static_cast<double>(std::uint64_t{3} << 30));
  EXPECT_FALSE(gpu1.get(core::FieldId::FanSpeed).ok());  // null in the event: absent, not 0 and not the old 30 %
  EXPECT_EQ(gpu1.get(core::FieldId::Name).as_string(), "H100");  // not a history column: kept
  EXPECT_TRUE(last.status[1].up);
  EXPECT_DOUBLE_EQ(last.status[1].sample_age_seconds, 0);
  // GPU 0 is untouched.
  EXPECT_DOUBLE_EQ(*last.snapshot.devices[0].get(core::FieldId::UtilizationGpu).as_double(), 0.9);
  EXPECT_FALSE(last.status[0].up);
}

TEST(RemoteEvents, BadOrForeignEventsLeaveTheSnapshotAlone) {
  RemoteSnapshot last = two_gpus();
  SseParser parser;
  auto events = parser.feed(event_text(5, 1));
  ASSERT_EQ(events.size(), 1u);
  auto unknown = apply_sample_event(events[0].data, last);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("GPU 5"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(apply_sample_event("not json", last));
  EXPECT_FALSE(apply_sample_event("{\"gpu\":0}", last));  // no seq
  EXPECT_FALSE(apply_sample_event("[1,2]", last));
  EXPECT_DOUBLE_EQ(*last.snapshot.devices[0].get(core::FieldId::UtilizationGpu).as_double(), 0.9);
  EXPECT_DOUBLE_EQ(*last.snapshot.devices[1].get(core::FieldId::UtilizationGpu).as_double(), 0.9);
}

}  // namespace remote_events_test
}  // namespace gpuwatch::remote
