// gpuwatch serve's hot path on 8 simulated H100s with 50 processes (per-process series
// on): encoding the latest samples as Prometheus text (what every scrape costs under the
// collector's lock), and a whole GET /metrics over loopback (connect, request, response,
// close) against the real MetricsServer. Figures: docs/exporter.md.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "live/collector.hpp"
#include "exporter/http_server.hpp"
#include "nvml/nvml_backend.hpp"
#include "nvml/nvml_library.hpp"

namespace gpuwatch {
namespace {

// The same node as sampler_bench (one simulated driver per process: same shape).
std::string write_scenario() {
  std::string yaml = "name: bench\ndescription: exporter benchmark\ngpus:\n";
  int pid = 40000;
  for (int g = 0; g < 8; ++g) {
    yaml += "  - model: H100 SXM 80GB\n    phases:\n      - {kind: training, duration: 1h}\n    processes:\n";
    for (int p = 0; p < (g < 2 ? 7 : 6); ++p) {
      yaml += "      - {command: \"python worker.py\", user: bench, memory: 1024, pid: " + std::to_string(pid++) + "}\n";
    }
  }
  std::string path = "/tmp/gpuwatch_exporter_bench_" + std::to_string(getpid()) + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

struct ExporterNode {
  std::unique_ptr<nvml::NvmlLibrary> library;
  std::unique_ptr<nvml::NvmlBackend> backend;
  std::unique_ptr<live::Collector> collector;
  std::unique_ptr<exporter::MetricsServer> server;
  std::thread http;
  int port = 0;

  ExporterNode() {
    if (std::getenv("GPUWATCH_SIM_SCENARIO") == nullptr) setenv("GPUWATCH_SIM_SCENARIO", write_scenario().c_str(), 1);
    auto lib = nvml::NvmlLibrary::open(std::string(GPUWATCH_SIM_DRIVER_DIR) + "/libnvidia-ml.so.1");
    if (!lib) {
      std::fprintf(stderr, "%s\n", lib.error().message.c_str());
      std::abort();
    }
    library = std::move(*lib);
    live::CollectorOptions options;
    options.interval = std::chrono::milliseconds(1000);
    options.processes = true;
    backend = std::make_unique<nvml::NvmlBackend>(library->api().raw());
    collector = std::make_unique<live::Collector>(*backend, options);
    collector->start();
    for (int i = 0; i < 500 && !collector->ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    exporter::ServerOptions server_options;
    server_options.encode.per_process = true;
    server = std::make_unique<exporter::MetricsServer>(*collector, server_options);
    auto bound = server->bind({"127.0.0.1", 0});
    if (!bound) std::abort();
    port = *bound;
    http = std::thread([this] { server->run(); });
    for (int i = 0; i < 500 && !server->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~ExporterNode() {
    server->stop();
    http.join();
    collector->stop(std::chrono::seconds(5));
  }
};

ExporterNode& node() {
  static ExporterNode n;
  return n;
}

void BM_EncodeMetrics_8Gpus50Processes(benchmark::State& state) {
  auto& n = node();
  exporter::EncodeOptions options;
  options.per_process = true;
  std::string body;
  for (auto _ : state) {
    n.collector->with_view([&](const live::LiveView& view) { exporter::encode_prometheus(view, options, body); });
    benchmark::DoNotOptimize(body.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.counters["body_bytes"] = static_cast<double>(body.size());
}
BENCHMARK(BM_EncodeMetrics_8Gpus50Processes)->Unit(benchmark::kMicrosecond);

// One GET /metrics with Connection: close; returns the body size (0 on failure).
std::size_t get_metrics(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return 0;
  }
  const char request[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (::send(fd, request, sizeof request - 1, 0) < 0) {
    ::close(fd);
    return 0;
  }
  std::string response;
  char buf[65536];
  for (;;) {
    ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got <= 0) break;
    response.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  auto body = response.find("\r\n\r\n");
  return response.rfind("HTTP/1.1 200", 0) == 0 && body != std::string::npos ? response.size() - body - 4 : 0;
}

void BM_HttpGetMetrics_8Gpus50Processes(benchmark::State& state) {
  auto& n = node();
  std::size_t size = 0;
  for (auto _ : state) {
    size = get_metrics(n.port);
    if (size == 0) {
      state.SkipWithError("GET /metrics failed");
      break;
    }
  }
  state.counters["body_bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_HttpGetMetrics_8Gpus50Processes)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace gpuwatch
