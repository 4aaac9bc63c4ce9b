// The real nanoGPT traces (8x H100, nvidia-smi at ~3-4 Hz: temperature, utilization, power)
// replayed after their warm-up: a real, healthy run gives no warning. The traces record no
// processes, power limit or memory: the adapter gives each GPU one "python" process (so
// the process kinds are exercised) and the H100 SXM's 700 W limit (the README's inference).
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "diagnose/diagnoser.hpp"
#include "scoring.hpp"
#include "sim_feed.hpp"

namespace gpuwatch::diagnose::testing {
namespace real_traces_test {  // this test file's helpers (unity builds: no clash with another file's)

struct Row {
  double t_s;
  unsigned gpu;
  double temp_c, util_pct, power_w;
};

double parse_iso(const std::string& s) {  // 2025-09-24T03:41:43.487Z
  std::tm tm{};
  std::istringstream in(s.substr(0, 19));
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  return static_cast<double>(timegm(&tm)) + std::stod(s.substr(19, s.size() - 20));
}

std::vector<Row> load(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string ts, g, temp, util, power;
    std::getline(l, ts, ',');
    std::getline(l, g, ',');
    std::getline(l, temp, ',');
    std::getline(l, util, ',');
    std::getline(l, power, ',');
    rows.push_back({parse_iso(ts), static_cast<unsigned>(std::stoul(g)), std::stod(temp), std::stod(util), std::stod(power)});
  }
  return rows;
}

// One snapshot per timestamp; the warm-up (before every GPU first reaches 90 %) is skipped.
std::vector<core::Snapshot> snapshots(const std::vector<Row>& rows) {
  std::map<double, std::vector<Row>> by_time;
  for (const auto& r : rows) by_time[r.t_s].push_back(r);
  std::vector<core::Snapshot> out;
  std::map<unsigned, bool> warm;
  bool started = false;
  static const std::string kName = "python";
  for (const auto& [t, rs] : by_time) {
    for (const auto& r : rs) warm[r.gpu] = warm[r.gpu] || r.util_pct >= 90;
    started = started || (warm.size() >= rs.size() && std::all_of(warm.begin(), warm.end(), [](auto& kv) { return kv.second; }));
    if (!started) continue;
    core::Snapshot s;
    s.timestamp = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(t)));
    for (const auto& r : rs) {
      core::DeviceSnapshot d;
      d.index = r.gpu;
      d.get(core::FieldId::UtilizationGpu) = core::FieldReading::of(r.util_pct / 100);
      d.get(core::FieldId::TemperatureGpu) = core::FieldReading::of(r.temp_c);
      d.get(core::FieldId::PowerDraw) = core::FieldReading::of(r.power_w);
      d.get(core::FieldId::EnforcedPowerLimit) = core::FieldReading::of(700.0);
      d.processes_status = core::FieldStatus::Ok;
      core::ProcessSample p;
      p.pid = 1000 + r.gpu;
      p.name = kName;
      d.processes.push_back(p);
      s.devices.push_back(std::move(d));
    }
    s.device_count = static_cast<unsigned>(s.devices.size());
    out.push_back(std::move(s));
  }
  return out;
}

TEST(DiagnoseRealTraces, HealthyNanoGptRunsGiveNoWarning) {
  int false_positives = 0;
  for (const char* file : {"nanogpt-pr643-8xH100-baseline-gpu_metrics.csv", "nanogpt-pr643-8xH100-colocated-gpu_metrics.csv"}) {
    auto rows = load(std::string(GPUWATCH_REALDATA_DIR) + "/traces/" + file);
    ASSERT_GT(rows.size(), 1000u) << file;
    auto snaps = snapshots(rows);
    ASSERT_GT(snaps.size(), 300u) << file;
    auto findings = diagnose_window(snaps);
    Score s = score({file, {}, {}}, findings);
    false_positives += s.false_positives;
    std::cout << file << ": " << snaps.size() << " samples, " << findings.size() << " finding(s), "
              << s.false_positives << " false positive(s)\n" << s.report << listing(findings);
  }
  EXPECT_EQ(false_positives, 0);
}

}  // namespace real_traces_test
}  // namespace gpuwatch::diagnose::testing
