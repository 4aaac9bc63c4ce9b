#pragma once
// Attribution of GPU processes, cheap enough for every sample:
// - /proc reads are cached per PID and redone only when the PID's start time changes (reuse);
// - the kubelet's pod list, container names and the hpc-job mapping directory are fetched by a
//   background thread (start()) with timeouts; attribute() only reads the last good answers,
//   so a slow or absent API never delays a sample;
// - a source that fails is logged once when it starts failing and once when it answers again;
//   meanwhile its fields stay empty (or keep the last good answer), never an error per sample.
// One-shot commands call refresh() once instead of start().
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "attribution/attribution.hpp"
#include "attribution/gpu_owners.hpp"
#include "attribution/job_mapping.hpp"
#include "attribution/pod_resources.hpp"
#include "attribution/proc_reader.hpp"
#include "core/result.hpp"

namespace gpuwatch::attribution {

struct AttributorOptions {
  std::string proc_root = "/proc";
  std::optional<std::string> pod_resources_socket;  // absent: no Kubernetes lookups
  std::optional<std::string> docker_socket;         // absent: no container names from docker
  std::optional<std::string> podman_socket;         // absent: none from podman
  std::optional<std::string> job_mapping_dir;       // dcgm-exporter's --hpc-job-mapping-dir
  std::chrono::milliseconds api_timeout{1000};      // per call
  std::chrono::milliseconds refresh_interval{5000}; // pod list and mapping directory
  std::chrono::milliseconds name_retry{60000};      // a container whose name lookup failed
  std::chrono::milliseconds forget_after{60000};    // a cached PID not asked about for this long
  std::function<void(const std::string&)> log;      // empty: stderr
  // Seams for tests; empty: the real gRPC call and Engine API GET.
  std::function<core::Result<PodResourceList>()> list_pods;
  std::function<core::Result<std::string>(Runtime, const std::string& container_id)> name_container;
};

// One process as NVML reported it.
struct GpuProcess {
  unsigned pid = 0;
  unsigned gpu_index = 0;
  std::string gpu_uuid;  // "" when unknown
};

class Attributor {
 public:
  explicit Attributor(AttributorOptions options);
  ~Attributor();
  Attributor(const Attributor&) = delete;
  Attributor& operator=(const Attributor&) = delete;

  // Starts the background thread (serve, status -i, pmon).
  void start();
  // Fetches the pod list and mapping directory now, and names every container seen so far
  // (one-shot commands, tests). Bounded by the API timeouts.
  void refresh();

  // By PID. Never waits on an API. A PID that is gone gets an empty Attribution. Thread-safe:
  // serve calls it from every GPU's sampling thread, each with that GPU's processes.
  std::map<unsigned, Attribution> attribute(const std::vector<GpuProcess>& processes);

  // Who holds a GPU, from the pod list, the mapping files and PROCESSES (those on it).
  GpuOwners owners(unsigned gpu_index, const std::string& uuid, const std::vector<Attribution>& processes) const;

  std::size_t cached_pids() const;

 private:
  struct CachedProcess {
    std::chrono::steady_clock::time_point seen;
    std::optional<std::uint64_t> start_ticks;
    Attribution from_files;
    EnvironFacts environ;
  };
  struct Source {  // one external source's health, for logging changes only
    bool failing = false;
  };

  CachedProcess cached(unsigned pid, std::chrono::steady_clock::time_point now);
  void fetch_pods_and_jobs();
  void name_pending_containers();
  void run();
  void report(Source& source, const core::Result<void>& outcome, const std::string& what);
  void log(const std::string& line) const;

  AttributorOptions options_;
  mutable std::mutex cache_mutex_;
  std::map<unsigned, CachedProcess> cache_;  // touched by attribute() only

  mutable std::mutex mutex_;  // guards what the background thread writes
  std::shared_ptr<const PodResourceList> pods_ = std::make_shared<PodResourceList>();
  std::shared_ptr<const JobMapping> jobs_ = std::make_shared<JobMapping>();
  std::map<std::string, std::string> names_;                               // container id -> name
  std::map<std::string, std::chrono::steady_clock::time_point> name_failed_;  // id -> when
  std::map<std::string, Runtime> pending_names_;
  Source pods_source_, jobs_source_, names_source_;

  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gpuwatch::attribution
