#include "attribution/attributor.hpp"

#include <iostream>

#include "attribution/container_names.hpp"
#include "attribution/kubelet_client.hpp"

namespace gpuwatch::attribution {

Attributor::Attributor(AttributorOptions options) : options_(std::move(options)) {}

Attributor::~Attributor() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Attributor::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void Attributor::refresh() {
  fetch_pods_and_jobs();
  name_pending_containers();
}

void Attributor::log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::cerr << "gpuwatch: " << line << "\n";
  }
}

void Attributor::report(Source& source, const core::Result<void>& outcome, const std::string& what) {
  if (!outcome && !source.failing) {
    log(outcome.error().message + " (" + what + " stay empty until it answers)");
  } else if (outcome && source.failing) {
    log(what + ": answering again");
  }
  source.failing = !outcome;
}

void Attributor::fetch_pods_and_jobs() {
  if (options_.pod_resources_socket || options_.list_pods) {
    auto listed = options_.list_pods ? options_.list_pods()
                                     : list_pod_resources(*options_.pod_resources_socket, options_.api_timeout);
    std::lock_guard lock(mutex_);
    if (listed) pods_ = std::make_shared<const PodResourceList>(std::move(*listed));  // else: last good list stays
    report(pods_source_, listed ? core::Result<void>() : core::Result<void>(listed.error()), "pod names");
  }
  if (options_.job_mapping_dir) {
    auto read = read_job_mapping_dir(*options_.job_mapping_dir);
    std::lock_guard lock(mutex_);
    // A missing directory means no job holds a GPU (an epilog may remove it): empty, not stale.
    jobs_ = std::make_shared<const JobMapping>(read ? std::move(*read) : JobMapping{});
    report(jobs_source_, read ? core::Result<void>() : core::Result<void>(read.error()), "hpc jobs from mapping files");
  }
}

void Attributor::name_pending_containers() {
  std::map<std::string, Runtime> pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(pending_names_);
  }
  for (const auto& [id, runtime] : pending) {
    core::Result<std::string> name = core::make_error("no socket for " + std::string(to_string(runtime)));
    if (options_.name_container) {
      name = options_.name_container(runtime, id);
    } else if (runtime == Runtime::Docker && options_.docker_socket) {
      name = container_name(*options_.docker_socket, id, options_.api_timeout);
    } else if (runtime == Runtime::Podman && options_.podman_socket) {
      name = container_name(*options_.podman_socket, id, options_.api_timeout);
    } else {
      continue;  // no API configured for this runtime: the id is all we show
    }
    std::lock_guard lock(mutex_);
    if (name) {
      names_[id] = *name;
      name_failed_.erase(id);
    } else {
      name_failed_[id] = std::chrono::steady_clock::now();
    }
    report(names_source_, name ? core::Result<void>() : core::Result<void>(name.error()), "container names");
  }
}

void Attributor::run() {
  auto next_fetch = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (std::chrono::steady_clock::now() >= next_fetch) {
      lock.unlock();
      fetch_pods_and_jobs();
      lock.lock();
      next_fetch = std::chrono::steady_clock::now() + options_.refresh_interval;
    }
    if (!pending_names_.empty()) {
      lock.unlock();
      name_pending_containers();
      lock.lock();
      continue;
    }
    wake_.wait_until(lock, next_fetch, [&] { return stopping_ || !pending_names_.empty(); });
  }
}

Attributor::CachedProcess Attributor::cached(unsigned pid, std::chrono::steady_clock::time_point now) {
  // The start time tells a new process that reuses the PID from the one cached.
  auto start = read_proc_files_start_ticks(pid, options_.proc_root);
  if (!start) {  // gone (or not visible): nothing to cache
    std::lock_guard lock(cache_mutex_);
    cache_.erase(pid);
    return {};
  }
  {
    std::lock_guard lock(cache_mutex_);
    auto found = cache_.find(pid);
    if (found != cache_.end() && found->second.start_ticks == start) {
      found->second.seen = now;
      return found->second;
    }
  }
  ProcFiles files = read_proc_files(pid, options_.proc_root);
  CachedProcess entry{now, start, attribution_of_files(files), environ_facts_of(files)};
  std::lock_guard lock(cache_mutex_);
  return cache_[pid] = std::move(entry);
}

std::map<unsigned, Attribution> Attributor::attribute(const std::vector<GpuProcess>& processes) {
  std::shared_ptr<const PodResourceList> pods;
  std::shared_ptr<const JobMapping> jobs;
  {
    std::lock_guard lock(mutex_);
    pods = pods_;
    jobs = jobs_;
  }
  std::map<unsigned, std::vector<std::string>> gpus_of;  // a process may run on several GPUs
  std::map<unsigned, std::vector<unsigned>> indexes_of;
  for (const auto& p : processes) {
    if (!p.gpu_uuid.empty()) gpus_of[p.pid].push_back(p.gpu_uuid);
    indexes_of[p.pid].push_back(p.gpu_index);
  }
  std::map<unsigned, Attribution> out;
  bool wake = false;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [pid, indexes] : indexes_of) {
    const CachedProcess entry = cached(pid, now);
    Attribution a = entry.from_files;
    if (a.pod_uid && !pods->empty()) {
      if (auto match = match_process(*pods, gpus_of[pid], entry.environ)) {
        a.pod_name = match->pod_name;
        a.pod_namespace = match->pod_namespace;
        a.pod_container = match->container_name;
      }
    }
    if (!a.slurm_job_id && !jobs->empty()) {  // the mapping file of its GPU, when it names one job
      std::set<std::string> ids;
      for (unsigned index : indexes) {
        if (auto found = jobs->find(std::to_string(index)); found != jobs->end()) ids.insert(found->second.begin(), found->second.end());
      }
      if (ids.size() == 1) a.slurm_job_id = *ids.begin();
    }
    if (a.container_id && a.runtime && (*a.runtime == Runtime::Docker || *a.runtime == Runtime::Podman)) {
      std::lock_guard lock(mutex_);
      if (auto name = names_.find(*a.container_id); name != names_.end()) {
        a.container_name = name->second;
      } else {
        auto failed = name_failed_.find(*a.container_id);
        bool retry = failed == name_failed_.end() ||
                     std::chrono::steady_clock::now() - failed->second >= options_.name_retry;
        if (retry && !pending_names_.count(*a.container_id)) {
          pending_names_[*a.container_id] = *a.runtime;
          wake = true;
        }
      }
    }
    out[pid] = std::move(a);
  }
  {
    std::lock_guard lock(cache_mutex_);
    for (auto it = cache_.begin(); it != cache_.end();) {
      it = now - it->second.seen > options_.forget_after ? cache_.erase(it) : std::next(it);
    }
  }
  if (wake) wake_.notify_all();
  return out;
}

GpuOwners Attributor::owners(unsigned gpu_index, const std::string& uuid, const std::vector<Attribution>& processes) const {
  std::shared_ptr<const PodResourceList> pods;
  std::shared_ptr<const JobMapping> jobs;
  {
    std::lock_guard lock(mutex_);
    pods = pods_;
    jobs = jobs_;
  }
  return owners_of_gpu(std::to_string(gpu_index), uuid, *pods, *jobs, processes);
}

std::size_t Attributor::cached_pids() const {
  std::lock_guard lock(cache_mutex_);
  return cache_.size();
}

}  // namespace gpuwatch::attribution
