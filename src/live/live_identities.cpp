#include "live/live_identities.hpp"

#include <utility>

#include "attribution/proc_reader.hpp"
#include "host/process_info.hpp"
#include "jobs/process_tree.hpp"

namespace gpuwatch::live {

std::optional<std::string> run_job_of_environ(std::string_view environ) {
  constexpr std::string_view kRunJobVariable = "GPUWATCH_JOB_ID=";
  std::size_t at = 0;
  while (at < environ.size()) {
    std::size_t end = environ.find('\0', at);
    if (end == std::string_view::npos) end = environ.size();
    const std::string_view entry = environ.substr(at, end - at);
    if (entry.starts_with(kRunJobVariable) && entry.size() > kRunJobVariable.size())
      return std::string(entry.substr(kRunJobVariable.size()));
    at = end + 1;
  }
  return std::nullopt;
}

IdentityReader proc_identity_reader(std::string proc_root, std::shared_ptr<attribution::Attributor> attributor) {
  IdentityReader reader;
  reader.start_of = [proc_root](std::uint32_t pid) { return attribution::read_proc_files_start_ticks(pid, proc_root); };
  reader.identity_of = [proc_root, attributor](std::uint32_t pid) {
    diagnose::ProcessIdentity identity;
    const host::ProcessInfo info = host::read_process_info(pid, proc_root);
    identity.command = info.command_line;
    identity.user = info.user;
    identity.parent_pid = jobs::read_parent_pid(pid, proc_root);
    const attribution::ProcFiles files = attribution::read_proc_files(pid, proc_root);
    attribution::Attribution who = attribution::attribution_of_files(files);
    if (attributor) {  // its cache and the APIs' last answers: the pod's name (never waits on an API)
      auto known = attributor->attribute({attribution::GpuProcess{pid, 0, ""}});
      if (auto it = known.find(pid); it != known.end()) {
        attribution::merge_into(it->second, who);
        who = std::move(it->second);
      }
    }
    identity.slurm_job = who.slurm_job_id;
    if (who.pod_namespace && who.pod_name) identity.pod = *who.pod_namespace + "/" + *who.pod_name;
    else if (who.pod_uid) identity.pod = *who.pod_uid;
    if (files.environ) identity.run_job = run_job_of_environ(*files.environ);
    return identity;
  };
  return reader;
}

void LiveIdentities::feed(const core::Snapshot& snapshot, diagnose::Diagnoser& diagnoser) {
  if (!reader_) return;
  ++tick_;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (process.pid == 0) continue;
      auto it = known_.find(process.pid);
      if (it != known_.end() && it->second.last_tick + 1 >= tick_) {  // present at the previous tick: the same process
        it->second.last_tick = tick_;
        continue;
      }
      learn(process.pid, diagnoser);
    }
  }
  if (known_.size() <= max_processes_) return;
  for (auto it = known_.begin(); it != known_.end();) it = it->second.last_tick < tick_ ? known_.erase(it) : std::next(it);
}

void LiveIdentities::adopt(const core::Snapshot& snapshot) {
  if (!reader_) return;
  ++tick_;
  for (const auto& device : snapshot.devices)
    for (const auto& process : device.processes)
      if (process.pid != 0) known_[process.pid] = Known{reader_.start_of(process.pid), tick_, true};
}

// PID is new, or back after a gap: the same process again (same start) keeps what was told.
void LiveIdentities::learn(std::uint32_t pid, diagnose::Diagnoser& diagnoser) {
  const std::optional<std::uint64_t> start = reader_.start_of(pid);
  Known& known = known_[pid];
  const bool seen_before = known.last_tick > 0;
  if (seen_before && start && known.start == start) {
    known.last_tick = tick_;
    return;
  }
  diagnose::ProcessIdentity identity = reader_.identity_of(pid);
  ++reads_;
  const bool has = identity != diagnose::ProcessIdentity{};
  if (has || known.told) diagnoser.identify(pid, std::move(identity));  // a reused PID drops the old one's
  known = Known{start, tick_, has};
}

}  // namespace gpuwatch::live
