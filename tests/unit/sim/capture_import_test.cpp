// `sim import`: every cell of every real --query-gpu capture survives the round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "sim/engine/capture_import.hpp"
#include "sim/engine/replay_source.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {
namespace capture_import_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> captures(const std::string& suffix) {
  std::vector<fs::path> out;
  fs::path dir = fs::path(GPUWATCH_REALDATA_DIR) / "nvidia-smi" / "extracted";
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(suffix)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string strip_unit(const std::string& cell) { return display_text(parse_value(cell)); }

TEST(CaptureImport, DetectsTheKindOfEachFile) {
  EXPECT_EQ(detect_capture_kind("timestamp, name, uuid, power.draw [W]\n"), CaptureKind::QueryGpu);
  EXPECT_EQ(detect_capture_kind("timestamp, gpu_name, gpu_bus_id, pid, process_name, used_gpu_memory [MiB]\n"),
            CaptureKind::ComputeApps);
  EXPECT_EQ(detect_capture_kind("\n==============NVSMI LOG==============\n\nTimestamp : x\n"), CaptureKind::QueryText);
  EXPECT_EQ(detect_capture_kind("hello, world\n"), CaptureKind::Unknown);
}

TEST(CaptureImport, RequiresAQueryGpuCsv) {
  auto r = import_capture_files({{"apps.csv", "timestamp, pid, process_name, used_gpu_memory [MiB]\n"}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--query-gpu"), std::string::npos);
}

TEST(CaptureImport, EveryRealCaptureRoundTripsExactly) {
  auto files = captures("query-gpu.csv");
  ASSERT_GE(files.size(), 16u) << "realdata not found at " << GPUWATCH_REALDATA_DIR;
  for (const auto& csv : files) {
    std::string stem = csv.string().substr(0, csv.string().size() - std::string("query-gpu.csv").size());
    std::vector<std::string> paths = {csv.string()};
    if (fs::exists(stem + "compute-apps.csv")) paths.push_back(stem + "compute-apps.csv");
    if (fs::exists(stem + "q.txt")) paths.push_back(stem + "q.txt");
    auto yaml = import_captures(paths);
    ASSERT_TRUE(yaml) << csv << ": " << yaml.error().message;
    auto sc = parse_scenario(*yaml, csv.filename().string(), "");
    ASSERT_TRUE(sc) << csv << ": " << sc.error().message << "\n" << *yaml;
    ASSERT_EQ(sc->gpus.size(), 1u);
    const auto& gpu = sc->gpus[0];
    std::istringstream in(read(csv));
    std::string header_line, row_line;
    std::getline(in, header_line);
    std::getline(in, row_line);
    auto header = split_csv_line(header_line);
    auto row = split_csv_line(row_line);
    ASSERT_EQ(header.size(), row.size());
    for (std::size_t i = 0; i < header.size(); ++i) {
      std::string name = header[i].substr(0, header[i].find(" ["));
      auto key = find_key(name);
      ASSERT_TRUE(key) << name;
      EXPECT_EQ(display_text(gpu.values[key_index(*key)]), strip_unit(row[i])) << csv.filename() << " " << name;
    }
    // Processes from the compute-apps capture, with their PIDs and memory.
    std::string apps = read(stem + "compute-apps.csv");
    std::size_t lines = static_cast<std::size_t>(std::count(apps.begin(), apps.end(), '\n'));
    EXPECT_EQ(gpu.processes.size(), lines > 0 ? lines - 1 : 0) << csv;
    for (const auto& p : gpu.processes) {
      EXPECT_TRUE(p.pid.has_value());
      EXPECT_GT(p.memory_mib, 0);
    }
  }
}

TEST(CaptureImport, MigCaptureBringsItsInstancesAndThresholdsFromQText) {
  auto files = captures("nvidia-h100-mig__590.48.01__load__query-gpu.csv");
  ASSERT_EQ(files.size(), 1u);
  std::string stem = files[0].string().substr(0, files[0].string().size() - std::string("query-gpu.csv").size());
  auto yaml = import_captures({files[0].string(), stem + "q.txt"});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "mig.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message;
  ASSERT_EQ(sc->gpus[0].mig.size(), 4u);
  EXPECT_EQ(sc->gpus[0].mig[0].memory_mib, 40448);
  EXPECT_EQ(sc->gpus[0].mig[0].gpu_instance_id, 2u);
  EXPECT_EQ(sc->gpus[0].mig[3].gpu_instance_id, 10u);
  EXPECT_EQ(sc->gpus[0].mig[0].profile, "3g.40gb");
  EXPECT_EQ(sc->gpus[0].values[key_index(Key::Architecture)].text, "Hopper");
}

TEST(CaptureImport, LoggedRowsBecomeAReplay) {
  std::string csv =
      "timestamp, index, uuid, pci.bus_id, utilization.gpu [%], power.draw [W], pstate\n"
      "2026/07/14 08:00:00.000, 0, GPU-a, 00000000:01:00.0, 5 %, 70.00 W, P0\n"
      "2026/07/14 08:00:00.000, 1, GPU-b, 00000000:02:00.0, 6 %, 71.00 W, P0\n"
      "2026/07/14 08:00:02.000, 0, GPU-a, 00000000:01:00.0, 95 %, 650.50 W, P0\n"
      "2026/07/14 08:00:02.000, 1, GPU-b, 00000000:02:00.0, 6 %, 71.00 W, P0\n";
  auto yaml = import_capture_files({{"log.csv", csv}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "log.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 2u);
  ASSERT_EQ(sc->gpus[0].phases.size(), 1u);
  EXPECT_EQ(sc->gpus[0].phases[0].kind, PhaseKind::Replay);
  ASSERT_EQ(sc->gpus[0].phases[0].rows.size(), 2u);
  EXPECT_DOUBLE_EQ(sc->gpus[0].phases[0].rows[1].t_s, 2.0);
}

// issue 24: a value equal to the first row's was left out of a later replay row, so the previous
// row's value held: 0 -> 90 -> 0 % replayed as 0 -> 90 -> 90. Every row now carries every value.
TEST(CaptureImport, EveryValueOfEveryRowIsKept) {
  std::string csv =
      "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
      "2026/07/14 08:00:00.000, 0, 0 %, 10 MiB\n"
      "2026/07/14 08:00:01.000, 0, 90 %, 10 MiB\n"
      "2026/07/14 08:00:02.000, 0, 0 %, 20 MiB\n";
  auto yaml = import_capture_files({{"log.csv", csv}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "log.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 1u);
  ASSERT_EQ(sc->gpus[0].phases.size(), 1u);
  const auto& rows = sc->gpus[0].phases[0].rows;
  ASSERT_EQ(rows.size(), 3u) << *yaml;
  auto value_of = [](const ReplayRow& row, Key key) -> std::optional<double> {
    for (const auto& [k, v] : row.values)
      if (k == key) return v.number;
    return std::nullopt;
  };
  EXPECT_EQ(value_of(rows[1], Key::UtilizationGpu), 90.0) << *yaml;
  EXPECT_EQ(value_of(rows[2], Key::UtilizationGpu), 0.0) << *yaml;  // was left out: 90 held
  EXPECT_EQ(value_of(rows[1], Key::MemoryUsed), 10.0) << *yaml;
  EXPECT_EQ(value_of(rows[2], Key::MemoryUsed), 20.0) << *yaml;
}

// issue 24: a 4-GPU log without index, uuid or bus id column was merged into one GPU.
TEST(CaptureImport, GpusWithoutAnyIdColumnStayApartByPosition) {
  std::string csv =
      "timestamp, utilization.gpu [%], memory.used [MiB]\n"
      "2025/09/08 14:14:37.120, 0 %, 11409 MiB\n"
      "2025/09/08 14:14:37.121, 5 %, 10851 MiB\n"
      "2025/09/08 14:14:38.123, 0 %, 11409 MiB\n"
      "2025/09/08 14:14:38.124, 7 %, 10851 MiB\n";
  auto yaml = import_capture_files({{"log.csv", csv}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "log.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 2u) << *yaml;
  EXPECT_EQ(sc->gpus[1].values[key_index(Key::MemoryUsed)].number, 10851) << *yaml;
  ASSERT_EQ(sc->gpus[1].phases.size(), 1u) << *yaml;
  ASSERT_EQ(sc->gpus[1].phases[0].rows.size(), 2u) << *yaml;
  EXPECT_NEAR(sc->gpus[1].phases[0].rows[1].t_s, 1.003, 1e-9);
}

// issue 24: --keep-time: start_time is the log's first time, and a GPU whose first row comes
// later keeps its offset from it (here GPU 1 starts 2.5 s into the log).
TEST(CaptureImport, KeepTimeGivesTheStartTimeAndEachGpusOffset) {
  std::string csv =
      "timestamp, index, utilization.gpu [%]\n"
      "2025/06/13 00:00:00.000, 0, 0 %\n"
      "2025/06/13 00:00:02.500, 1, 10 %\n"
      "2025/06/13 00:00:03.000, 0, 90 %\n"
      "2025/06/13 00:00:04.500, 1, 20 %\n";
  auto yaml = import_capture_files({{"log.csv", csv}}, CaptureImportOptions{true});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "log.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_TRUE(sc->start_ms.has_value()) << *yaml;
  EXPECT_EQ(*sc->start_ms, 1749772800000LL) << *yaml;
  ASSERT_EQ(sc->gpus.size(), 2u) << *yaml;
  ASSERT_EQ(sc->gpus[0].phases.at(0).rows.size(), 2u) << *yaml;
  EXPECT_NEAR(sc->gpus[0].phases[0].rows[1].t_s, 3.0, 1e-9);
  ASSERT_EQ(sc->gpus[1].phases.at(0).rows.size(), 2u) << *yaml;
  EXPECT_NEAR(sc->gpus[1].phases[0].rows[0].t_s, 2.5, 1e-9);
  EXPECT_NEAR(sc->gpus[1].phases[0].rows[1].t_s, 4.5, 1e-9);

  auto plain = import_capture_files({{"log.csv", csv}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->find("start_time"), std::string::npos);
  auto no_time = import_capture_files({{"log.csv", "index, utilization.gpu [%]\n0, 1 %\n"}}, CaptureImportOptions{true});
  ASSERT_FALSE(no_time);
  EXPECT_NE(no_time.error().message.find("--keep-time needs a timestamp"), std::string::npos);
}

TEST(CaptureImport, ScenarioStartTimeIsCheckedAndRead) {
  auto ok = parse_scenario("start_time: 2025-06-13T00:00:01.250Z\ngpus: [{model: h100}]\n", "s.yaml", "");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->start_ms, std::optional<std::int64_t>(1749772801250LL));
  auto bad = parse_scenario("start_time: yesterday\ngpus: [{model: h100}]\n", "s.yaml", "");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("start_time"), std::string::npos);
}

// issue 9: a capture without uuid (the README's `--query-gpu=index,name,...`) merged its two
// GPUs into one replay and put every process on GPU 0. GPUs are told apart by index (or bus id).
TEST(CaptureImport, GpusWithoutUuidAreToldApartByIndex) {
  std::string csv =
      "index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n"
      "0, NVIDIA H100 80GB HBM3, 81559 MiB, 62315 MiB, 99 %\n"
      "1, NVIDIA H100 80GB HBM3, 81559 MiB, 1 MiB, 0 %\n";
  auto yaml = import_capture_files({{"q.csv", csv}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "q.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 2u) << *yaml;
  EXPECT_TRUE(sc->gpus[0].phases.empty() && sc->gpus[1].phases.empty()) << *yaml;  // no replay of GPU 1 as GPU 0
  EXPECT_EQ(sc->gpus[1].values[key_index(Key::UtilizationGpu)].number, 0);

  // Processes that do not say their GPU cannot be placed on 2 GPUs: an error, never GPU 0.
  std::string apps = "pid, process_name, used_memory [MiB]\n4242, python, 62314 MiB\n4243, python, 100 MiB\n";
  auto unplaced = import_capture_files({{"q.csv", csv}, {"apps.csv", apps}});
  ASSERT_FALSE(unplaced);
  EXPECT_NE(unplaced.error().message.find("gpu_bus_id"), std::string::npos) << unplaced.error().message;
}

TEST(CaptureImport, AnIndexOnlyLogReplaysEachGpuAndProcessesFollowTheirBusId) {
  std::string log =
      "timestamp, index, utilization.gpu [%]\n"
      "2026/07/14 08:00:00.000, 0, 5 %\n"
      "2026/07/14 08:00:00.000, 1, 6 %\n"
      "2026/07/14 08:00:01.000, 0, 95 %\n"
      "2026/07/14 08:00:01.000, 1, 7 %\n";
  auto yaml = import_capture_files({{"log.csv", log}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "log.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 2u) << *yaml;
  for (const auto& gpu : sc->gpus) {
    ASSERT_EQ(gpu.phases.size(), 1u);
    ASSERT_EQ(gpu.phases[0].rows.size(), 2u);
    EXPECT_DOUBLE_EQ(gpu.phases[0].rows[1].t_s, 1.0);
  }

  std::string csv =
      "index, pci.bus_id, name\n0, 00000000:18:00.0, NVIDIA H100 80GB HBM3\n1, 00000000:2A:00.0, NVIDIA H100 80GB HBM3\n";
  std::string apps =
      "gpu_bus_id, pid, process_name, used_gpu_memory [MiB]\n"
      "00000000:2A:00.0, 4243, eval.py, 100 MiB\n00000000:18:00.0, 4242, train.py, 62314 MiB\n";
  auto placed = import_capture_files({{"q.csv", csv}, {"apps.csv", apps}});
  ASSERT_TRUE(placed) << placed.error().message;
  auto two = parse_scenario(*placed, "q.yaml", "");
  ASSERT_TRUE(two) << two.error().message << "\n" << *placed;
  ASSERT_EQ(two->gpus.size(), 2u);
  ASSERT_EQ(two->gpus[0].processes.size(), 1u);
  ASSERT_EQ(two->gpus[1].processes.size(), 1u);
  EXPECT_EQ(two->gpus[0].processes[0].pid, 4242u);
  EXPECT_EQ(two->gpus[1].processes[0].pid, 4243u);

  // A bus id the --query-gpu capture cannot match (it has no pci.bus_id): said so.
  std::string index_only = "index, name\n0, NVIDIA H100 80GB HBM3\n1, NVIDIA H100 80GB HBM3\n";
  auto unmatched = import_capture_files({{"q.csv", index_only}, {"apps.csv", apps}});
  ASSERT_FALSE(unmatched);
  EXPECT_NE(unmatched.error().message.find("pci.bus_id"), std::string::npos) << unmatched.error().message;
}

// issue 9: a process recorded at 61440 MiB came back as 19645 MiB: the imported memory.used
// (61441, the process included) was taken as memory besides the processes, and the process
// was cut to what was left of the device (81920 - 834 reserved - 61441).
TEST(CaptureImport, ProcessMemoryRoundTripsExactly) {
  const std::string apps = "gpu_uuid, pid, process_name, used_gpu_memory [MiB]\nGPU-a, 4242, python, 61440 MiB\n";
  for (const std::string rows : {std::string("2026-11-29T15:44:40.431+00:00, 0, GPU-a, NVIDIA A100-SXM4-80GB, 81920 MiB, 61441 MiB\n"),
                                 std::string("2026-11-29T15:44:40.431+00:00, 0, GPU-a, NVIDIA A100-SXM4-80GB, 81920 MiB, 61441 MiB\n"
                                             "2026-11-29T15:44:41.431+00:00, 0, GPU-a, NVIDIA A100-SXM4-80GB, 81920 MiB, 61442 MiB\n")}) {
    const std::string csv = "time, index, uuid, name, memory.total [MiB], memory.used [MiB]\n" + rows;
    auto yaml = import_capture_files({{"history.csv", csv}, {"apps.csv", apps}});
    ASSERT_TRUE(yaml) << yaml.error().message;
    auto sc = parse_scenario(*yaml, "history.yaml", "");
    ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
    Simulation sim(std::move(*sc), {});
    for (double t : {0.0, 5.0}) {
      DynamicSample sample;
      sim.evaluate(0, t, sample);
      ASSERT_EQ(sample.processes.size(), 1u) << *yaml;
      EXPECT_EQ(sample.processes[0].pid, 4242u);
      EXPECT_DOUBLE_EQ(sample.processes[0].memory_mib, 61440) << "at " << t << "\n" << *yaml;
    }
  }
}

// `sim import` takes gpuwatch's own CSV log too ("time" instead of "timestamp").
TEST(CaptureImport, GpuwatchRecordCsvBecomesAReplay) {
  std::string csv =
      "time, index, uuid, utilization.gpu [%], power.draw [W]\n"
      "2026-11-29T15:44:40.431+00:00, 0, GPU-a, 5 %, 70.00 W\n"
      "2026-11-29T15:44:40.531+00:00, 0, GPU-a, 95 %, 650.50 W\n";
  auto yaml = import_capture_files({{"record.csv", csv}});
  ASSERT_TRUE(yaml) << yaml.error().message;
  auto sc = parse_scenario(*yaml, "record.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message << "\n" << *yaml;
  ASSERT_EQ(sc->gpus.size(), 1u);
  ASSERT_EQ(sc->gpus[0].phases.size(), 1u);
  ASSERT_EQ(sc->gpus[0].phases[0].rows.size(), 2u);
  EXPECT_DOUBLE_EQ(sc->gpus[0].phases[0].rows[1].t_s, 0.1);  // to the microsecond, no float noise
  EXPECT_NE(yaml->find("t: 0.1,"), std::string::npos) << *yaml;
}

TEST(ReplaySource, ReadsTheRealTraces) {
  fs::path trace = fs::path(GPUWATCH_REALDATA_DIR) / "traces" / "nanogpt-pr643-8xH100-baseline-gpu_metrics.csv";
  ASSERT_TRUE(fs::exists(trace));
  auto series = load_recorded_series(trace.string());
  ASSERT_TRUE(series) << series.error().message;
  ASSERT_EQ(series->per_gpu.size(), 8u);
  EXPECT_GT(series->per_gpu[0].size(), 100u);
  EXPECT_DOUBLE_EQ(series->per_gpu[0][0].t_s, 0.0);
  bool power = false;
  for (const auto& [k, v] : series->per_gpu[0][0].values) power = power || (k == Key::PowerDraw && v.number == 73.41);
  EXPECT_TRUE(power);
}

// issue 2: gpuwatch's own recordings replay too: `record --csv` / `history --format csv`
// write "time" (ISO-8601 with the zone) first, then query names with their units.
TEST(ReplaySource, ReadsGpuwatchRecordCsv) {
  std::string csv =
      "time, index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw [W], pstate, "
      "clocks_event_reasons.active, energy.total [J], pcie.rx_throughput [KB/s]\n"
      "2026-11-29T15:06:30.138+01:00, 0, GPU-a, NVIDIA H100 80GB HBM3, 97 %, 40960 MiB, 612.34 W, P0, "
      "0x0000000000000000, 123456.789 J, 45000 KB/s\n"
      "2026-11-29T15:06:30.138+01:00, 1, GPU-b, NVIDIA H100 80GB HBM3, [N/A], [N/A], 70.00 W, P8, "
      "0x0000000000000001, [N/A], [N/A]\n"
      "2026-11-29T14:06:31.638Z, 0, GPU-a, NVIDIA H100 80GB HBM3, 12 %, 41000 MiB, 300.00 W, P2, "
      "0x0000000000000004, 123999.000 J, 1000 KB/s\n";
  auto series = read_recorded_series(csv);
  ASSERT_TRUE(series) << series.error().message;
  ASSERT_EQ(series->per_gpu.size(), 2u);
  ASSERT_EQ(series->per_gpu[0].size(), 2u);
  ASSERT_EQ(series->per_gpu[1].size(), 1u);
  EXPECT_DOUBLE_EQ(series->per_gpu[0][1].t_s, 1.5);  // zones honoured: +01:00 vs Z
  auto value = [](const ReplayRow& row, Key key) -> const Value* {
    for (const auto& [k, v] : row.values)
      if (k == key) return &v;
    return nullptr;
  };
  const ReplayRow& first = series->per_gpu[0][0];
  EXPECT_EQ(value(first, Key::UtilizationGpu)->number, 97);
  EXPECT_EQ(value(first, Key::MemoryUsed)->number, 40960);
  EXPECT_DOUBLE_EQ(value(first, Key::PowerDraw)->number, 612.34);
  EXPECT_EQ(value(first, Key::Pstate)->text, "P0");
  EXPECT_DOUBLE_EQ(value(first, Key::EnergyTotal)->number, 123456.789);
  EXPECT_EQ(value(first, Key::PcieRxThroughput)->number, 45000);
  EXPECT_EQ(value(series->per_gpu[0][1], Key::ClocksEventReasonsActive)->integer, 4u);
  EXPECT_TRUE(value(series->per_gpu[1][0], Key::UtilizationGpu)->is_error());  // [N/A] stays absent
}

// `record --jsonl`: base units (bytes, ratio, Hz, s) back to the scenario's display units.
TEST(ReplaySource, ReadsGpuwatchRecordJsonl) {
  std::string jsonl =
      R"({"time":"2026-11-29T15:06:30.138+00:00","index":0,"uuid":"GPU-a","utilization_gpu_ratio":0.97,)"
      R"("memory_used_bytes":42949672960,"power_draw_w":612.34,"clocks_current_sm_hz":1410000000,"pstate":0,)"
      R"("fan_speed_ratio":null,"pcie_rx_throughput_bytes_per_s":46080000.0,"unknown_key":5})" "\n"
      R"({"time":"2026-11-29T15:06:31.138+00:00","index":0,"uuid":"GPU-a","utilization_gpu_ratio":0.12})" "\n";
  auto series = read_recorded_series(jsonl);
  ASSERT_TRUE(series) << series.error().message;
  ASSERT_EQ(series->per_gpu.size(), 1u);
  ASSERT_EQ(series->per_gpu[0].size(), 2u);
  EXPECT_DOUBLE_EQ(series->per_gpu[0][1].t_s, 1.0);
  std::map<Key, Value> first;
  for (const auto& [k, v] : series->per_gpu[0][0].values) first[k] = v;
  EXPECT_EQ(first.at(Key::UtilizationGpu).number, 97);
  EXPECT_EQ(first.at(Key::MemoryUsed).number, 40960);
  EXPECT_DOUBLE_EQ(first.at(Key::PowerDraw).number, 612.34);
  EXPECT_EQ(first.at(Key::ClocksCurrentSm).number, 1410);
  EXPECT_EQ(first.at(Key::Pstate).number, 0);
  EXPECT_EQ(first.at(Key::PcieRxThroughput).number, 45000);
  EXPECT_TRUE(first.at(Key::FanSpeed).is_error());
  EXPECT_FALSE(read_recorded_series("{\"index\": 0}\n"));  // no time
  EXPECT_FALSE(read_recorded_series("{\"time\": \n"));    // not JSON
}

TEST(ReplaySource, TimestampsWithAndWithoutZones) {
  double a = 0, b = 0, c = 0, d = 0;
  ASSERT_TRUE(parse_timestamp("2026/07/14 08:12:53.353", a));
  ASSERT_TRUE(parse_timestamp("2026-07-14T08:12:53.353Z", b));
  ASSERT_TRUE(parse_timestamp("2026-07-14T10:12:53.353+02:00", c));
  ASSERT_TRUE(parse_timestamp("2026-07-14 03:42:53.353-0430", d));
  EXPECT_DOUBLE_EQ(a, b);
  EXPECT_DOUBLE_EQ(b, c);
  EXPECT_DOUBLE_EQ(b, d);
  EXPECT_FALSE(parse_timestamp("2026-07-14T08:12:53.353 garbage", a));
  EXPECT_FALSE(parse_timestamp("yesterday", a));
  auto bad = read_recorded_series("index, utilization.gpu [%]\n0, 5 %\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("'time'"), std::string::npos) << bad.error().message;
}

}  // namespace capture_import_test
}  // namespace gpuwatch::sim
