#include "exporter/json_api.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "core/field_table.hpp"

namespace gpuwatch::exporter {
namespace json_api_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;
using nlohmann::json;

core::DeviceSnapshot device(unsigned index, std::string uuid) {
  core::DeviceSnapshot d;
  d.index = index;
  d.get(FieldId::Index) = FieldReading::of(std::int64_t{index});
  d.get(FieldId::Uuid) = FieldReading::of(std::move(uuid));
  d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.93);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{85899345920});
  d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{67});
  d.get(FieldId::PowerDraw) = FieldReading::of(631.95);
  d.get(FieldId::FanSpeed) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  return d;
}

TEST(JsonApi, SnapshotHasBaseUnitsNullsProcessesAndFreshness) {
  core::Snapshot snap;
  snap.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'250));
  snap.driver_version = "535.261.03";
  snap.cuda_driver_version = 12020;
  snap.device_count = 2;
  snap.devices.push_back(device(0, "GPU-aaaa"));
  snap.devices.push_back(device(1, "GPU-bbbb"));
  auto& d0 = snap.devices[0];
  d0.processes_status = FieldStatus::Ok;
  core::ProcessSample p;
  p.pid = 4242;
  p.name = "python3";
  p.used_memory_bytes = 1048576;
  p.sm_ratio = 0.5;
  d0.processes.push_back(p);
  live::LiveView view{&snap, {live::DeviceStatus{true, true, 0.25, 0.004}, live::DeviceStatus{true, false, 42.5, 0.003}},
                  {}, {{4242, "alice"}}, false};

  host::ProcessInfo info;
  info.command_line = "python3 train.py --epochs 3";
  info.cpu_ratio = 1.25;
  info.rss_bytes = 2048;
  info.run_seconds = 61.6;
  view.process_info[4242] = info;

  json j = json::parse(snapshot_json(view));
  EXPECT_EQ(j["timestamp_s"], 1'700'000'000.25);
  EXPECT_EQ(j["driver_version"], "535.261.03");
  EXPECT_EQ(j["cuda_driver_version"], 12020);
  EXPECT_EQ(j["device_count"], 2);
  EXPECT_EQ(j["collector_success"], false);
  ASSERT_EQ(j["gpus"].size(), 2u);
  const json& g0 = j["gpus"][0];
  EXPECT_EQ(g0["index"], 0);
  EXPECT_EQ(g0["state"], "ok");
  EXPECT_EQ(g0["up"], true);
  EXPECT_EQ(g0["sample_age_seconds"], 0.25);
  EXPECT_EQ(g0["uuid"], "GPU-aaaa");
  EXPECT_EQ(g0["utilization_gpu_ratio"], 0.93);
  EXPECT_EQ(g0["memory_used_bytes"], 85899345920ull);
  EXPECT_EQ(g0["temperature_gpu_c"], 67);
  EXPECT_EQ(g0["power_draw_w"], 631.95);
  ASSERT_TRUE(g0.contains("fan_speed_ratio"));
  EXPECT_TRUE(g0["fan_speed_ratio"].is_null());  // not supported: null, never 0
  ASSERT_TRUE(g0.contains("power_limit_w"));
  EXPECT_TRUE(g0["power_limit_w"].is_null());  // not read
  ASSERT_EQ(g0["processes"].size(), 1u);
  EXPECT_EQ(g0["processes"][0]["pid"], 4242);
  EXPECT_EQ(g0["processes"][0]["name"], "python3");
  EXPECT_EQ(g0["processes"][0]["user"], "alice");
  EXPECT_EQ(g0["processes"][0]["type"], "C");
  EXPECT_EQ(g0["processes"][0]["used_memory_bytes"], 1048576);
  EXPECT_EQ(g0["processes"][0]["sm_ratio"], 0.5);
  EXPECT_TRUE(g0["processes"][0]["memory_ratio"].is_null());
  EXPECT_EQ(g0["processes"][0]["command_line"], "python3 train.py --epochs 3");  // from /proc (serve)
  EXPECT_EQ(g0["processes"][0]["host_cpu_ratio"], 1.25);
  EXPECT_EQ(g0["processes"][0]["host_rss_bytes"], 2048);
  EXPECT_EQ(g0["processes"][0]["run_seconds"], 62);

  // GPU 1 is stale: identity stays, values are not passed off as current.
  const json& g1 = j["gpus"][1];
  EXPECT_EQ(g1["index"], 1);
  EXPECT_EQ(g1["up"], false);
  EXPECT_EQ(g1["sample_age_seconds"], 42.5);
  EXPECT_EQ(g1["uuid"], "GPU-bbbb");
  EXPECT_EQ(g1["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(g1["utilization_gpu_ratio"].is_null());
  EXPECT_TRUE(g1["processes"].is_null());
}

TEST(JsonApi, NeverSampledGpuAndMismatchedView) {
  core::Snapshot snap;
  snap.device_count = 1;
  snap.devices.resize(1);
  live::LiveView view{&snap, {live::DeviceStatus{}}, {}, {}, false};
  json j = json::parse(snapshot_json(view));
  EXPECT_EQ(j["gpus"][0]["state"], "not_sampled");
  EXPECT_TRUE(j["gpus"][0]["sample_age_seconds"].is_null());
  EXPECT_EQ(j["gpus"][0]["up"], false);
  view.status.clear();
  EXPECT_TRUE(json::parse(snapshot_json(view)).contains("error"));
}

live::HistoryRow row(std::uint64_t seq, unsigned gpu, double t, double util) {
  live::HistoryRow r;
  r.seq = seq;
  r.gpu = gpu;
  r.timestamp_s = t;
  r.up = true;
  r.processes = 2;
  r.values.fill(std::nan(""));
  r.values[0] = util;                   // utilization_gpu_ratio
  r.values[4] = 85899345920.0;          // memory_used_bytes
  return r;
}

TEST(JsonApi, HistoryIsColumnarPerGpuWithNullForAbsent) {
  ASSERT_EQ(core::field_info(live::kHistoryFields[0]).json_key, "utilization_gpu_ratio");
  ASSERT_EQ(core::field_info(live::kHistoryFields[4]).json_key, "memory_used_bytes");
  std::vector<live::HistoryRow> rows = {row(1, 0, 100.1234, 0.5), row(2, 1, 100.2, 0.25), row(3, 0, 101.1, 0.75)};
  rows[2].processes.reset();
  json j = json::parse(history_json(rows, {0, 1, 2}, 60.0, 600, 1.0));
  EXPECT_EQ(j["seconds"], 60.0);
  EXPECT_EQ(j["capacity"], 600);
  EXPECT_EQ(j["interval_s"], 1.0);
  EXPECT_EQ(j["fields"].size(), live::kHistoryFields.size());
  EXPECT_EQ(j["fields"][0], "utilization_gpu_ratio");
  ASSERT_EQ(j["gpus"].size(), 3u);
  const json& g0 = j["gpus"][0];
  EXPECT_EQ(g0["index"], 0);
  EXPECT_EQ(g0["timestamp_s"], json({100.123, 101.1}));  // milliseconds
  EXPECT_EQ(g0["utilization_gpu_ratio"], json({0.5, 0.75}));
  EXPECT_EQ(g0["processes"], json({2, nullptr}));
  EXPECT_EQ(g0["up"], json({true, true}));
  EXPECT_EQ(g0["memory_used_bytes"][0], 85899345920ll);
  EXPECT_TRUE(g0["memory_used_bytes"][0].is_number_integer());  // integral values print as integers
  EXPECT_EQ(g0["fan_speed_ratio"], json({nullptr, nullptr}));
  for (const auto& key : j["fields"]) EXPECT_EQ(g0[key.get<std::string>()].size(), 2u) << key;
  EXPECT_EQ(j["gpus"][1]["utilization_gpu_ratio"], json({0.25}));
  EXPECT_TRUE(j["gpus"][2]["timestamp_s"].empty());  // no rows yet: empty columns

  json only = json::parse(history_json(rows, {1}, std::nullopt, 600, 1.0));
  EXPECT_TRUE(only["seconds"].is_null());
  ASSERT_EQ(only["gpus"].size(), 1u);
  EXPECT_EQ(only["gpus"][0]["index"], 1);
}

TEST(JsonApi, HistorySaysWhereItsRowsComeFrom) {
  std::vector<live::HistoryRow> rows = {row(1, 0, 100.0, 0.5)};
  json memory = json::parse(history_json(rows, {0}, 60.0, 600, 0.5));
  EXPECT_EQ(memory["source"], "memory");
  EXPECT_EQ(memory["resolution_seconds"], 0.5);  // the sampling interval
  EXPECT_FALSE(memory.contains("store_error"));

  json stored = json::parse(history_json(rows, {0}, 86400.0, 600, 0.5, HistoryOrigin{"store", 120.0, std::nullopt}));
  EXPECT_EQ(stored["source"], "store");
  EXPECT_EQ(stored["resolution_seconds"], 120.0);
  EXPECT_EQ(stored["gpus"][0]["utilization_gpu_ratio"], json({0.5}));  // the same columnar shape

  json fallback = json::parse(history_json(rows, {0}, 86400.0, 600, 0.5, HistoryOrigin{"memory", std::nullopt, "busy"}));
  EXPECT_EQ(fallback["source"], "memory");
  EXPECT_EQ(fallback["store_error"], "busy");
}

TEST(JsonApi, StoreRowsCarryTheirMinMaxBand) {
  ASSERT_EQ(core::field_info(live::kBandFields[0]).json_key, "utilization_gpu_ratio");
  std::vector<live::HistoryRow> rows = {row(1, 0, 100.0, 0.5), row(2, 0, 160.0, 0.6)};
  json live = json::parse(history_json(rows, {0}, 60.0, 600, 1.0));
  EXPECT_FALSE(live["gpus"][0].contains("min"));  // live rows: no band
  auto band = std::make_shared<live::HistoryBand>();
  band->min.fill(std::nan(""));
  band->max.fill(std::nan(""));
  band->min[0] = 0.1;
  band->max[0] = 0.9;
  rows[1].band = band;
  json stored = json::parse(history_json(rows, {0}, 86400.0, 600, 1.0, HistoryOrigin{"store", 60.0, std::nullopt}));
  const json& g = stored["gpus"][0];
  EXPECT_EQ(g["min"]["utilization_gpu_ratio"], json({nullptr, 0.1}));  // parallel to timestamp_s
  EXPECT_EQ(g["max"]["utilization_gpu_ratio"], json({nullptr, 0.9}));
  EXPECT_EQ(g["max"]["power_draw_w"], json({nullptr, nullptr}));  // absent: null, never 0
  EXPECT_EQ(g["min"].size(), live::kBandFields.size());
}

TEST(JsonApi, HistoryRequestParsing) {
  auto all = parse_history_request("", "", 2);
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->seconds);
  EXPECT_FALSE(all->gpu);
  auto some = parse_history_request("90.5", "1", 2);
  ASSERT_TRUE(some);
  EXPECT_EQ(*some->seconds, 90.5);
  EXPECT_EQ(*some->gpu, 1u);
  EXPECT_FALSE(parse_history_request("0", "", 2));
  EXPECT_FALSE(parse_history_request("-5", "", 2));
  EXPECT_FALSE(parse_history_request("ten", "", 2));
  EXPECT_FALSE(parse_history_request("nan", "", 2));
  EXPECT_FALSE(parse_history_request("", "2", 2));  // only GPUs 0 and 1
  EXPECT_FALSE(parse_history_request("", "x", 2));
  EXPECT_FALSE(parse_history_request("", "-1", 2));
}

TEST(JsonApi, SampleEventIsOneServerSentEvent) {
  std::string event = sample_event(row(7, 1, 5.5, 0.5));
  ASSERT_EQ(event.rfind("id: 7\nevent: sample\ndata: {", 0), 0u) << event;
  ASSERT_GE(event.size(), 2u);
  EXPECT_EQ(event.substr(event.size() - 2), "\n\n");
  std::string data = event.substr(event.find("data: ") + 6);
  data.resize(data.size() - 2);
  EXPECT_EQ(data.find('\n'), std::string::npos);
  json j = json::parse(data);
  EXPECT_EQ(j["seq"], 7);
  EXPECT_EQ(j["gpu"], 1);
  EXPECT_EQ(j["timestamp_s"], 5.5);
  EXPECT_EQ(j["utilization_gpu_ratio"], 0.5);
  EXPECT_TRUE(j["fan_speed_ratio"].is_null());
  EXPECT_EQ(json::parse(error_json("bad \"x\""))["error"], "bad \"x\"");
}

}  // namespace json_api_test
}  // namespace gpuwatch::exporter
