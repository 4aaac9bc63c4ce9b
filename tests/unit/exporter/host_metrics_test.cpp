// gpuwatch_host_* (issue 25): names in base units from host_fields()' keys, values scaled (percent
// -> ratio), per disk / interface / InfiniBand port series with their labels, the process trees only
// with per-process series, nothing for an absent value or a snapshot without a host sample; and the
// JSON API's "host" object and /api/v1/host's shape.
#include "exporter/host_metrics.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>

#include "exporter/json_api.hpp"
#include "exporter/prometheus_encoder.hpp"
#include "host_signals/host_fields.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::exporter {
namespace host_metrics_test {  // this test file's helpers (unity builds: no clash with another file's)

using host_signals::HostSample;

HostSample busy_host() {
  HostSample h;
  h.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'500));
  h.interval_s = 1.0;
  h.cpu_busy_percent = 87.5;
  h.cpu_iowait_percent = 2.0;
  h.memory_total_bytes = 1024000;
  h.memory_available_percent = 25.0;
  h.disk_read_bytes_per_s = 1.5e6;
  h.disks = {{"nvme0n1", 1.5e6, 0.0, 50.0}, {"sda", std::nullopt, std::nullopt, std::nullopt}};
  h.net_rx_bytes_per_s = 2e6;
  h.interfaces = {{"eth0", 2e6, 1e3}};
  h.ib_ports = {{"mlx5_0", "1", 4e9, 3e9, 1e6, std::nullopt}};
  h.process_trees = {{4242, 3.5, 9}, {4343, std::nullopt, 1}};
  return h;
}

std::string encode_host(const HostSample* host, bool per_process) {
  core::Snapshot snap;
  if (host) snap.host = std::make_shared<const HostSample>(*host);
  live::LiveView view;
  view.snapshot = &snap;
  std::string out;
  encode_host_native(view, per_process, out);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(HostMetrics, NamesFollowTheFieldKeysInBaseUnits) {
  EXPECT_EQ(host_metric_of("cpu_busy_percent").name, "gpuwatch_host_cpu_busy_ratio");
  EXPECT_DOUBLE_EQ(host_metric_of("cpu_busy_percent").scale, 0.01);
  EXPECT_EQ(host_metric_of("net_rx_bytes_per_s").name, "gpuwatch_host_net_rx_bytes_per_second");
  EXPECT_EQ(host_metric_of("swap_in_pages_per_s").name, "gpuwatch_host_swap_in_pages_per_second");
  EXPECT_EQ(host_metric_of("memory_total_bytes").name, "gpuwatch_host_memory_total_bytes");
  EXPECT_DOUBLE_EQ(host_metric_of("memory_total_bytes").scale, 1.0);
  EXPECT_EQ(host_metric_of("interval_s").name, "gpuwatch_host_interval_seconds");
  // Every key of the table gets a distinct name with no abbreviated unit (promtool's lint).
  std::set<std::string> names;
  for (const auto& field : host_signals::host_fields()) {
    const std::string name = host_metric_of(field.key).name;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(name.find("_percent"), std::string::npos) << name;
    EXPECT_FALSE(name.size() > 2 && name.substr(name.size() - 2) == "_s") << name;
    EXPECT_EQ(name.find("_s_"), std::string::npos) << name;
  }
}

TEST(HostMetrics, ScalarsPerDeviceSeriesAndAbsentLeftOut) {
  const HostSample h = busy_host();
  const std::string text = encode_host(&h, false);
  EXPECT_TRUE(has_line(text, "# TYPE gpuwatch_host_cpu_busy_ratio gauge")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_cpu_busy_ratio 0.875")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_cpu_iowait_ratio 0.02")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_memory_total_bytes 1024000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_memory_available_ratio 0.25")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_interval_seconds 1")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_disk_read_bytes_per_second 1500000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_net_rx_bytes_per_second 2000000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_disk_device_read_bytes_per_second{device=\"nvme0n1\"} 1500000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_disk_device_write_bytes_per_second{device=\"nvme0n1\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_disk_device_busy_ratio{device=\"nvme0n1\"} 0.5")) << text;
  EXPECT_EQ(text.find("device=\"sda\""), std::string::npos) << "a disk without rates yet has no series";
  EXPECT_TRUE(has_line(text, "gpuwatch_host_net_interface_rx_bytes_per_second{interface=\"eth0\"} 2000000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_net_interface_tx_bytes_per_second{interface=\"eth0\"} 1000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_ib_port_rx_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 4000000000")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_ib_port_rx_packets_per_second{device=\"mlx5_0\",port=\"1\"} 1000000")) << text;
  EXPECT_EQ(text.find("gpuwatch_host_ib_port_tx_packets_per_second"), std::string::npos) << "absent: no family at all";
  EXPECT_EQ(text.find("gpuwatch_host_cpu_steal_ratio"), std::string::npos) << "absent, never 0";
  EXPECT_EQ(text.find("gpuwatch_host_cpu_pressure"), std::string::npos) << "no PSI: no series";
  EXPECT_EQ(text.find("process_tree"), std::string::npos) << "per-process series are opt-in";
  // Every series has its HELP and TYPE lines.
  std::size_t helps = 0, types = 0;
  for (std::size_t at = text.find("# HELP "); at != std::string::npos; at = text.find("# HELP ", at + 1)) ++helps;
  for (std::size_t at = text.find("# TYPE "); at != std::string::npos; at = text.find("# TYPE ", at + 1)) ++types;
  EXPECT_EQ(helps, types);
  EXPECT_GE(helps, 15u);
}

TEST(HostMetrics, ProcessTreesWithPerProcessSeries) {
  const HostSample h = busy_host();
  const std::string text = encode_host(&h, true);
  EXPECT_TRUE(has_line(text, "gpuwatch_host_process_tree_cpu_cores{pid=\"4242\"} 3.5")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_process_tree_processes{pid=\"4242\"} 9")) << text;
  EXPECT_TRUE(has_line(text, "gpuwatch_host_process_tree_processes{pid=\"4343\"} 1")) << text;
  EXPECT_EQ(text.find("gpuwatch_host_process_tree_cpu_cores{pid=\"4343\"}"), std::string::npos) << "first reading: no rate";
}

TEST(HostMetrics, NoHostSampleNoSeries) {
  EXPECT_EQ(encode_host(nullptr, true), "");
  HostSample empty;  // a host where nothing could be read
  EXPECT_EQ(encode_host(&empty, true), "");
}

TEST(HostJsonApi, SnapshotCarriesTheHostObjectOrNull) {
  core::Snapshot snap;
  live::LiveView view;
  view.snapshot = &snap;
  auto without = nlohmann::json::parse(snapshot_json(view));
  ASSERT_TRUE(without.contains("host"));
  EXPECT_TRUE(without["host"].is_null());
  snap.host = std::make_shared<const HostSample>(busy_host());
  auto with = nlohmann::json::parse(snapshot_json(view));
  EXPECT_DOUBLE_EQ(with["host"]["cpu_busy_percent"].get<double>(), 87.5);  // status --json's keys and units
  EXPECT_EQ(with["host"]["memory_total_bytes"].get<std::uint64_t>(), 1024000u);
  EXPECT_TRUE(with["host"]["cpu_steal_percent"].is_null());
  EXPECT_EQ(with["host"]["disks"][0]["name"], "nvme0n1");
  ASSERT_EQ(with["host"]["process_trees"].size(), 2u);
  EXPECT_EQ(with["host"]["process_trees"][0]["pid"], 4242);
  EXPECT_DOUBLE_EQ(with["host"]["process_trees"][0]["cpu_cores"].get<double>(), 3.5);
  EXPECT_TRUE(with["host"]["process_trees"][1]["cpu_cores"].is_null());
}

TEST(HostJsonApi, LatestAndColumnarSeriesWithNullsForAbsent) {
  const HostSample h = busy_host();
  live::HostRow a = live::make_host_row(h);
  HostSample later = h;
  later.timestamp += std::chrono::seconds(1);
  later.cpu_busy_percent.reset();
  live::HostRow b = live::make_host_row(later);
  auto j = nlohmann::json::parse(host_api_json(&later, {a, b}));
  EXPECT_TRUE(j["latest"]["cpu_busy_percent"].is_null());
  EXPECT_DOUBLE_EQ(j["latest"]["memory_available_percent"].get<double>(), 25.0);
  const auto& series = j["series"];
  ASSERT_EQ(series["t"].size(), 2u);
  EXPECT_DOUBLE_EQ(series["t"][0].get<double>(), 1'700'000'000.5);
  EXPECT_DOUBLE_EQ(series["t"][1].get<double>(), 1'700'000'001.5);
  for (const auto& field : host_signals::host_fields()) {
    ASSERT_TRUE(series.contains(std::string(field.key))) << field.key;
    EXPECT_EQ(series[std::string(field.key)].size(), 2u) << field.key;
  }
  EXPECT_DOUBLE_EQ(series["cpu_busy_percent"][0].get<double>(), 87.5);
  EXPECT_TRUE(series["cpu_busy_percent"][1].is_null());
  EXPECT_TRUE(series["cpu_steal_percent"][0].is_null());
  EXPECT_TRUE(series["memory_total_bytes"][1].is_number_unsigned());
  EXPECT_EQ(series["memory_total_bytes"][1].get<std::uint64_t>(), 1024000u);

  auto none = nlohmann::json::parse(host_api_json(nullptr, {}));
  EXPECT_TRUE(none["latest"].is_null());
  EXPECT_EQ(none["series"]["t"].size(), 0u);
  EXPECT_EQ(none["series"]["cpu_busy_percent"].size(), 0u);
}

}  // namespace host_metrics_test
}  // namespace gpuwatch::exporter
