// History store: ingest rate of GPU-samples into SQLite through the batched writer,
// and bytes on disk per raw GPU-sample (issue 5 targets: >= 100k GPU-samples/s
// batched; <= 100 bytes per GPU-sample). Snapshots carry every recorded field with
// values at NVML's resolution (integer %, mW, MHz) that move like a training job.
//
//   gpuwatch_bench --benchmark_filter=Store
// BM_StoreIngest/<rows per flush>: items_per_second = GPU-samples/s, wall clock (synchronous=FULL,
// one fsync per flush, as `record` runs). BM_StoreBytesPerSample: the counter
// bytes_per_gpu_sample after 8 GPUs x 2000 samples, WAL checkpointed.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "store/history_columns.hpp"
#include "store/history_database.hpp"
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
    d.get(FieldId::FanSpeed) = FieldReading::absent(core::FieldStatus::NotSupported, 3);
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

}  // namespace
}  // namespace gpuwatch
