#include "remote/remote_node.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "exporter/json_api.hpp"

namespace gpuwatch::remote {
namespace {

TEST(RemoteNode, UrlsWithSchemeAuthPortOrNone) {
  auto a = parse_remote_url("http://gpu1:9000");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "gpu1");
  EXPECT_EQ(a->port, 9000);
  EXPECT_EQ(a->name(), "gpu1:9000");
  auto b = parse_remote_url("https://ops:s3cret@gpu2.example.com:9835/");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->scheme, "https");
  EXPECT_EQ(b->user, "ops");
  EXPECT_EQ(b->password, "s3cret");
  EXPECT_EQ(b->host, "gpu2.example.com");
  auto c = parse_remote_url("gpu3");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->port, 9835);
  auto d = parse_remote_url("[::1]:9100");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->host, "::1");
  EXPECT_EQ(d->port, 9100);
  EXPECT_FALSE(parse_remote_url("ftp://x:1"));
  EXPECT_FALSE(parse_remote_url("http://x:99999"));
  EXPECT_FALSE(parse_remote_url("http://:80"));
  auto bad = parse_remote_url("http://x:port");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("1 to 65535"), std::string::npos);
}

// What serve answers reads back into the same values (fields, freshness, processes, findings).
TEST(RemoteNode, SnapshotJsonReadsBack) {
  core::Snapshot s;
  s.driver_version = "550.90.07";
  s.device_count = 2;
  s.devices.resize(2);
  for (unsigned i = 0; i < 2; ++i) {
    s.devices[i].index = i;
    s.devices[i].get(core::FieldId::Name) = core::FieldReading::of(std::string("H100"));
    s.devices[i].get(core::FieldId::UtilizationGpu) = core::FieldReading::of(0.75);
    s.devices[i].get(core::FieldId::MemoryUsed) = core::FieldReading::of(std::uint64_t{1} << 30);
    s.devices[i].processes_status = core::FieldStatus::Ok;
  }
  core::ProcessSample p;
  p.pid = 4242;
  p.name = "python";
  p.used_memory_bytes = std::uint64_t{1} << 30;
  s.devices[1].processes.push_back(p);
  live::LiveView view;
  view.snapshot = &s;
  view.status = {{true, true, 0.2, 0.01}, {true, false, 9.5, 0.01}};
  view.process_users[4242] = "alice";
  diagnose::Finding f;
  f.kind = "thermal_throttle";
  f.severity = diagnose::Severity::Critical;
  f.gpus = {0};
  f.summary = "thermal throttling";
  view.findings = {f};
  auto back = parse_snapshot_json(exporter::snapshot_json(view));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->snapshot.devices.size(), 2u);
  EXPECT_EQ(back->snapshot.driver_version, "550.90.07");
  EXPECT_EQ(back->snapshot.devices[0].get(core::FieldId::UtilizationGpu).as_double(), 0.75);
  EXPECT_EQ(back->snapshot.devices[0].get(core::FieldId::Name).as_string(), "H100");
  EXPECT_TRUE(back->status[0].up);
  EXPECT_FALSE(back->status[1].up);  // stale on the remote host: its fields are null, so absent here
  EXPECT_DOUBLE_EQ(back->status[1].sample_age_seconds, 9.5);
  EXPECT_FALSE(back->snapshot.devices[1].get(core::FieldId::UtilizationGpu).ok());
  ASSERT_EQ(back->findings.size(), 1u);
  EXPECT_EQ(back->findings[0].summary, "thermal throttling");
  EXPECT_EQ(back->findings[0].gpus, std::vector<unsigned>{0});
  EXPECT_FALSE(parse_snapshot_json("<html>"));
  EXPECT_FALSE(parse_snapshot_json("{\"x\":1}"));
}

TEST(RemoteNode, ADeadHostSaysSoWithinItsTimeout) {
  // Port 1 on loopback: nothing listens, the connection is refused at once.
  RemoteNode node(*parse_remote_url("http://127.0.0.1:1"), std::chrono::milliseconds(50), std::chrono::milliseconds(300));
  node.start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  RemoteState s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = node.state();
    if (s.error != "connecting") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  node.stop();
  EXPECT_FALSE(s.answered);
  EXPECT_FALSE(s.has_snapshot);
  EXPECT_NE(s.error.find("no answer"), std::string::npos) << s.error;
  EXPECT_EQ(s.name, "127.0.0.1:1");
}

// With the event stream on, a dead host is still down within its timeout, the stream says why it
// is not open, and stop() does not wait for the stream's long read timeout.
TEST(RemoteNode, ADeadHostWithTheStreamOnStopsPromptly) {
  RemoteNode node(*parse_remote_url("http://127.0.0.1:1"), std::chrono::milliseconds(50), std::chrono::milliseconds(300),
                  true);
  EXPECT_EQ(node.state().stream_note, "connecting");
  node.start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  RemoteState s;
  while (std::chrono::steady_clock::now() < deadline) {
    s = node.state();
    if (s.error != "connecting" && s.stream_note != "connecting") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto t0 = std::chrono::steady_clock::now();
  node.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_FALSE(s.answered);
  EXPECT_FALSE(s.streaming);
  EXPECT_NE(s.stream_note.find("polling"), std::string::npos) << s.stream_note;
  EXPECT_EQ(RemoteNode(*parse_remote_url("http://127.0.0.1:1"), std::chrono::milliseconds(50),
                       std::chrono::milliseconds(300)).state().stream_note, "off");
}

// A host's GPUs and processes are capped while parsing, and the cut is counted for the note.
TEST(RemoteSnapshotCap, KeepsTheFirstGpusAndProcessesAndCountsTheRest) {
  std::string body = R"({"driver_version":"550","gpus":[)";
  const std::size_t gpus = kMaxRemoteGpus + 36;
  for (std::size_t g = 0; g < gpus; ++g) {
    body += (g ? "," : "") + std::string(R"({"index":)") + std::to_string(g) + R"(,"processes":[)";
    const std::size_t processes = g == 0 ? kMaxRemoteProcessesPerGpu + 5 : 3;
    for (std::size_t p = 0; p < processes; ++p) {
      body += (p ? "," : "") + std::string(R"({"pid":)") + std::to_string(1000 + p) + R"(,"name":"x"})";
    }
    body += R"(],"findings":[]})";
  }
  body += "]}";
  auto parsed = parse_snapshot_json(body);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->snapshot.devices.size(), kMaxRemoteGpus);
  EXPECT_EQ(parsed->snapshot.devices.back().index, kMaxRemoteGpus - 1) << "the first ones are kept, in order";
  EXPECT_EQ(parsed->snapshot.devices[0].processes.size(), kMaxRemoteProcessesPerGpu);
  EXPECT_EQ(parsed->snapshot.devices[1].processes.size(), 3u);
  EXPECT_EQ(parsed->gpus_dropped, 36u);
  EXPECT_EQ(parsed->processes_dropped, 5u) << "the dropped GPUs' processes are not counted twice";
  EXPECT_EQ(capped_note(*parsed), "showing 64 of 100 GPUs, 5 processes not shown (cap: 64 GPUs, 1024 processes a GPU)");
  EXPECT_EQ(parsed->snapshot.driver_version, "550");

  auto small = parse_snapshot_json(R"({"gpus":[{"index":0,"processes":[{"pid":1}]}]})");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->snapshot.devices.size(), 1u);
  EXPECT_EQ(capped_note(*small), "") << "nothing dropped, nothing said";
}

}  // namespace
}  // namespace gpuwatch::remote
