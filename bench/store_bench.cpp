// History store: ingest rate of GPU-samples into SQLite through the batched writer,
// and bytes on disk per raw GPU-sample (issue 5 targets: >= 100k GPU-samples/s
// batched; <= 100 bytes per GPU-sample). Snapshots carry every recorded field with
// values at NVML's resolution (integer %, mW, MHz) that move like a training job.
//
//   gpuwatch_bench --benchmark_filter=Store
// BM_StoreIngest/<rows per flush>: items_per_second = GPU-samples/s, wall clock (synchronous=FULL,
// one fsync per flush, as `record` runs). BM_StoreBytesPerSample: the counter
// bytes_per_gpu_sample after 8 GPUs x 2000 samples, WAL checkpointed.
// BM_StoreReport24h/<chart points>: `gpuwatch report` over a 24-hour, 8-GPU, 1 Hz history
// (691,200 GPU-samples and as many process samples, built once per run): 0 = the terminal summary, 600 = with the
// chart buckets of -o report.html (target < 1 s).
// BM_StoreReport30d/<chart points>: `report --since 30d` over the 24-hour history plus 29
// older days in 1-minute and 1-hour rollups (what retention leaves).
// BM_StoreRetentionRollup: one retention pass that rolls one hour of raw samples
// (8 GPUs x 3600) up into 1-minute rows and deletes them.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "store/history_columns.hpp"
#include "store/history_database.hpp"
#include "store/history_report.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"

namespace gpuwatch {
namespace {

using core::FieldId;
using core::FieldReading;

constexpr unsigned kGpus = 8;

core::Snapshot training_snapshot(std::int64_t time_ms, std::mt19937& rng) {
  std::uniform_int_distribution<int> percent(85, 100), mw(300'000, 700'000), temp(60, 80), sm_mhz(1700, 1980);
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(time_ms));
  snapshot.device_count = kGpus;
  for (unsigned g = 0; g < kGpus; ++g) {
    core::DeviceSnapshot d;
    d.index = g;
    d.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-bench-") + std::to_string(g));
    d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA H100 80GB HBM3"));
    d.get(FieldId::UtilizationGpu) = FieldReading::of(percent(rng) * 1e-2);
    d.get(FieldId::UtilizationMemory) = FieldReading::of((percent(rng) - 40) * 1e-2);
    d.get(FieldId::UtilizationEncoder) = FieldReading::of(0.0);
    d.get(FieldId::UtilizationDecoder) = FieldReading::of(0.0);
    d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t(70'000 + percent(rng)) << 20);
    d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{81'559} << 20);
    d.get(FieldId::MemoryReserved) = FieldReading::of(std::uint64_t{583} << 20);
    d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{temp(rng)});
    d.get(FieldId::TemperatureMemory) = FieldReading::of(std::int64_t{temp(rng) + 5});
    d.get(FieldId::PowerDraw) = FieldReading::of(mw(rng) * 1e-3);
    d.get(FieldId::EnforcedPowerLimit) = FieldReading::of(700.0);
    d.get(FieldId::EnergyTotal) = FieldReading::of(static_cast<double>(time_ms % 100'000'000) * 0.5);
    d.get(FieldId::FanSpeed) = FieldReading::absent(core::FieldStatus::NotSupported, {core::ErrorReason::NotSupported, 3});
    d.get(FieldId::Pstate) = FieldReading::of(std::int64_t{0});
    d.get(FieldId::ClocksCurrentGraphics) = FieldReading::of(std::uint64_t(sm_mhz(rng)) * 1'000'000);
    d.get(FieldId::ClocksCurrentSm) = FieldReading::of(std::uint64_t(sm_mhz(rng)) * 1'000'000);
    d.get(FieldId::ClocksCurrentMemory) = FieldReading::of(std::uint64_t{2'619'000'000});
    d.get(FieldId::ClocksCurrentVideo) = FieldReading::of(std::uint64_t{1'755'000'000});
    d.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(std::uint64_t{0});
    d.get(FieldId::PcieTxThroughput) = FieldReading::of(std::uint64_t(mw(rng)) * 1024);
    d.get(FieldId::PcieRxThroughput) = FieldReading::of(std::uint64_t(mw(rng)) * 1024);
    d.get(FieldId::EccErrorsCorrectedVolatileTotal) = FieldReading::of(std::uint64_t{0});
    d.get(FieldId::EccErrorsUncorrectedVolatileTotal) = FieldReading::of(std::uint64_t{0});
    d.get(FieldId::ClocksMaxSm) = FieldReading::of(std::uint64_t{1'980'000'000});  // schema 5: limits, link
    d.get(FieldId::TemperatureGpuSlowdown) = FieldReading::of(std::int64_t{90});
    d.get(FieldId::PowerDefaultLimit) = FieldReading::of(700.0);
    d.get(FieldId::PcieLinkGenCurrent) = FieldReading::of(std::uint64_t{5});
    d.get(FieldId::PcieLinkGenMax) = FieldReading::of(std::uint64_t{5});
    d.get(FieldId::PcieLinkWidthCurrent) = FieldReading::of(std::uint64_t{16});
    d.get(FieldId::PcieLinkWidthMax) = FieldReading::of(std::uint64_t{16});
    snapshot.devices.push_back(std::move(d));
  }
  return snapshot;
}

std::string temp_db_path(const char* name) {
  std::string path = "/tmp/gpuwatch_store_bench_" + std::to_string(getpid()) + "_" + name + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

void remove_db(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void BM_StoreIngest(benchmark::State& state) {
  const std::size_t rows_per_flush = static_cast<std::size_t>(state.range(0));
  const std::string path = temp_db_path("ingest");
  auto db = store::HistoryDatabase::open(path);
  if (!db) {
    state.SkipWithError(db.error().message.c_str());
    return;
  }
  std::mt19937 rng(42);
  // Pre-built snapshots: the benchmark measures the store, not snapshot construction.
  std::vector<core::Snapshot> snapshots;
  for (int i = 0; i < 64; ++i) snapshots.push_back(training_snapshot(0, rng));
  std::int64_t time_ms = 1'800'000'000'000;
  std::int64_t rows = 0;
  {
  store::HistoryWriter writer(**db, store::WriterOptions{std::chrono::hours(1), rows_per_flush * 2});
  for (auto _ : state) {
    for (std::size_t n = 0; n < rows_per_flush; n += kGpus) {
      core::Snapshot& s = snapshots[static_cast<std::size_t>(time_ms) % snapshots.size()];
      s.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(time_ms += 1000));
      writer.add(s);
    }
    auto written = writer.flush();
    if (!written) {
      state.SkipWithError(written.error().message.c_str());
      break;
    }
    rows += static_cast<std::int64_t>(*written);
  }
  }  // the writer's statements go before the connection
  state.SetItemsProcessed(rows);
  state.counters["rows_per_flush"] = static_cast<double>(rows_per_flush);
  db->reset();
  remove_db(path);
}
// 40 = 8 GPUs x 5 s at 1 Hz (what `record` flushes by default); 8000 = a large batch.
BENCHMARK(BM_StoreIngest)->Arg(40)->Arg(8000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreBytesPerSample(benchmark::State& state) {
  constexpr int kSamples = 2000;
  double bytes_per_row = 0;
  for (auto _ : state) {
    const std::string path = temp_db_path("bytes");
    {
      auto db = store::HistoryDatabase::open(path, store::OpenOptions{.durable = false});
      if (!db) {
        state.SkipWithError(db.error().message.c_str());
        return;
      }
      std::mt19937 rng(7);
      store::HistoryWriter writer(**db);
      auto empty_bytes = (*db)->size_bytes();
      for (int i = 0; i < kSamples; ++i) {
        writer.add(training_snapshot(1'800'000'000'000 + i * 1000LL, rng));
        if ((i + 1) % 5 == 0) (void)writer.flush();  // batches as `record` writes them (5 s)
      }
      (void)writer.flush();
      (*db)->checkpoint();
      bytes_per_row = static_cast<double>((*db)->size_bytes() - empty_bytes) / (kSamples * kGpus);
    }
    remove_db(path);
  }
  state.counters["bytes_per_gpu_sample"] = bytes_per_row;
}
BENCHMARK(BM_StoreBytesPerSample)->Unit(benchmark::kMillisecond)->Iterations(1);

// A history of HOURS hours, 8 GPUs at 1 Hz, written in batches of 5 s.
bool fill_history(store::HistoryDatabase& db, std::int64_t start_ms, int hours, std::uint32_t seed) {
  std::mt19937 rng(seed);
  store::HistoryWriter writer(db, store::WriterOptions{std::chrono::hours(1), 1'000'000});
  for (std::int64_t i = 0; i < hours * 3600LL; ++i) {
    core::Snapshot snapshot = training_snapshot(start_ms + i * 1000, rng);
    for (auto& device : snapshot.devices) {  // one training process per GPU, a new one every 6 hours
      core::ProcessSample process;
      process.pid = static_cast<std::uint32_t>(1000 + device.index * 10 + i / (6 * 3600));
      process.name = "python";
      process.used_memory_bytes = std::uint64_t{70'000} << 20;
      device.processes.push_back(process);
      device.processes_status = core::FieldStatus::Ok;
    }
    writer.add(snapshot);
    if ((i + 1) % 1000 == 0 && !writer.flush()) return false;
  }
  return static_cast<bool>(writer.flush());
}

constexpr std::int64_t kReportStartMs = 1'800'000'000'000;

void BM_StoreReport24h(benchmark::State& state) {
  static const std::string path = temp_db_path("report24h");
  static const struct RemoveAtExit {
    ~RemoveAtExit() { remove_db(path); }
  } remove_at_exit;
  static const bool built = [] {
    auto db = store::HistoryDatabase::open(path, store::OpenOptions{.durable = false});
    if (!db || !fill_history(**db, kReportStartMs, 24, 11)) return false;
    (*db)->checkpoint();
    return true;
  }();
  if (!built) {
    state.SkipWithError("cannot build the 24-hour history");
    return;
  }
  auto db = store::HistoryDatabase::open(path, store::OpenOptions{.read_only = true});
  if (!db) {
    state.SkipWithError(db.error().message.c_str());
    return;
  }
  store::ReportQuery query;
  query.since_ms = kReportStartMs;
  query.chart_points = static_cast<std::size_t>(state.range(0));
  std::int64_t samples = 0;
  for (auto _ : state) {
    auto report = store::build_report(**db, query);
    if (!report) {
      state.SkipWithError(report.error().message.c_str());
      break;
    }
    samples = 0;
    for (const auto& gpu : report->gpus) samples += gpu.samples;
    benchmark::DoNotOptimize(report);
  }
  state.counters["gpu_samples"] = static_cast<double>(samples);
  state.SetItemsProcessed(state.iterations() * samples);
}
BENCHMARK(BM_StoreReport24h)->Arg(0)->Arg(600)->Unit(benchmark::kMillisecond)->UseRealTime();

// A 30-day history as retention leaves it with --retain-raw 1d --retain-1m 7d: the last
// day raw (the 24-hour history above), 7 days of 1-minute rows, 22 days of 1-hour rows.
// The older days are recorded at one sample a minute per GPU and rolled up by
// apply_retention itself, so the rollup rows (and their v3 counts) are the real thing.
void BM_StoreReport30d(benchmark::State& state) {
  constexpr std::int64_t kDayMs = 86'400'000, kMinuteMs = 60'000;
  static const std::string path = temp_db_path("report30d");
  static const struct RemoveAtExit {
    ~RemoveAtExit() { remove_db(path); }
  } remove_at_exit;
  static const bool built = [] {
    auto db = store::HistoryDatabase::open(path, store::OpenOptions{.durable = false});
    if (!db) return false;
    std::mt19937 rng(3);
    {
      store::HistoryWriter writer(**db, store::WriterOptions{std::chrono::hours(1), 1'000'000});
      for (std::int64_t t = kReportStartMs - 29 * kDayMs; t < kReportStartMs; t += kMinuteMs) {
        writer.add(training_snapshot(t, rng));
        if (writer.pending_rows() >= 80'000 && !writer.flush()) return false;
      }
      if (!writer.flush()) return false;
    }
    store::RetentionPolicy policy;
    policy.raw = std::chrono::hours(24);
    policy.minute = std::chrono::hours(24 * 8);
    if (!store::apply_retention(**db, policy, kReportStartMs + kDayMs)) return false;
    if (!fill_history(**db, kReportStartMs, 24, 11)) return false;
    (*db)->checkpoint();
    return true;
  }();
  if (!built) {
    state.SkipWithError("cannot build the 30-day history");
    return;
  }
  auto db = store::HistoryDatabase::open(path, store::OpenOptions{.read_only = true});
  if (!db) {
    state.SkipWithError(db.error().message.c_str());
    return;
  }
  store::ReportQuery query;
  query.since_ms = kReportStartMs - 29 * kDayMs;
  query.chart_points = static_cast<std::size_t>(state.range(0));
  std::int64_t samples = 0, rollup_samples = 0;
  for (auto _ : state) {
    auto report = store::build_report(**db, query);
    if (!report || !report->rollup_1m || !report->rollup_1h) {
      state.SkipWithError(report ? "the rollups were not read" : report.error().message.c_str());
      break;
    }
    samples = rollup_samples = 0;
    for (const auto& gpu : report->gpus) {
      samples += gpu.samples;
      rollup_samples += gpu.rollup_samples;
    }
    benchmark::DoNotOptimize(report);
  }
  state.counters["gpu_samples"] = static_cast<double>(samples);
  state.counters["from_rollups"] = static_cast<double>(rollup_samples);
}
BENCHMARK(BM_StoreReport30d)->Arg(0)->Arg(600)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreRetentionRollup(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    const std::string path = temp_db_path("retention");
    auto db = store::HistoryDatabase::open(path);
    if (!db || !fill_history(**db, kReportStartMs, 1, 5)) {
      state.SkipWithError("cannot build the history");
      return;
    }
    store::RetentionPolicy policy;
    policy.raw = std::chrono::hours(1);
    state.ResumeTiming();
    auto result = store::apply_retention(**db, policy, kReportStartMs + 2 * 3'600'000);
    state.PauseTiming();
    if (!result || result->raw_rolled_up != 8 * 3600) state.SkipWithError("the rollup did not roll up the hour");
    db->reset();
    remove_db(path);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_StoreRetentionRollup)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace gpuwatch
