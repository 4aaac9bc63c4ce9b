#pragma once
// The live diagnosis's process identities (issue 23, "one cause per job"): a snapshot carries only
// each process's PID and NVML name, so two unrelated `python` jobs would be one job. Once per new
// process (a PID not seen at the previous tick, checked against its /proc start time so a reused
// PID is a new process), this reads what /proc and the attribution know about it (command line,
// user, parent, `gpuwatch run` job, Slurm job, pod) and tells the diagnose engine
// (Diagnoser::identify). Runs on the diagnosis tick, never on a GPU's sampling thread; a process
// already known costs one map look-up per tick. What cannot be read stays absent.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "attribution/attributor.hpp"
#include "core/snapshot.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/jobs.hpp"

namespace gpuwatch::live {

// Where identities come from (tests pass fakes; live: proc_identity_reader).
struct IdentityReader {
  // When PID started (the cheap check that a PID seen again is the same process); nullopt: unknown.
  std::function<std::optional<std::uint64_t>(std::uint32_t pid)> start_of;
  // Everything known about PID; members absent when unknown. Called once per new process.
  std::function<diagnose::ProcessIdentity(std::uint32_t pid)> identity_of;
  explicit operator bool() const { return start_of && identity_of; }
};

// The reader of PROC_ROOT: command line and user (host::read_process_info), parent PID, Slurm job
// and pod from cgroup and environment (attribution), GPUWATCH_JOB_ID from the environment (the
// `gpuwatch run` job). With ATTRIBUTOR (may be null), the pod's namespace/name as it knows them.
IdentityReader proc_identity_reader(std::string proc_root = "/proc",
                                    std::shared_ptr<attribution::Attributor> attributor = nullptr);

// The `gpuwatch run` job id in a /proc/PID/environ text (GPUWATCH_JOB_ID=…); nullopt when unset. Pure.
std::optional<std::string> run_job_of_environ(std::string_view environ);

class LiveIdentities {
 public:
  explicit LiveIdentities(IdentityReader reader, std::size_t max_processes = 4096)
      : reader_(std::move(reader)), max_processes_(max_processes) {}

  // Tells DIAGNOSER the identity of every process of SNAPSHOT that is new since the previous call.
  void feed(const core::Snapshot& snapshot, diagnose::Diagnoser& diagnoser);
  // Takes the processes of SNAPSHOT as known without telling the engine: an engine primed from
  // the history already grouped them (by their recorded command lines); telling it more now would
  // give their GPUs another job id and split an open job-level finding (a hang) in two.
  void adopt(const core::Snapshot& snapshot);

  std::size_t known() const { return known_.size(); }
  std::size_t identities_read() const { return reads_; }

 private:
  struct Known {
    std::optional<std::uint64_t> start;
    std::uint64_t last_tick = 0;
    bool told = false;  // an identity was given to the engine (a reused PID must replace it)
  };
  void learn(std::uint32_t pid, diagnose::Diagnoser& diagnoser);

  IdentityReader reader_;
  std::size_t max_processes_;
  std::map<std::uint32_t, Known> known_;
  std::uint64_t tick_ = 0;
  std::size_t reads_ = 0;
};

}  // namespace gpuwatch::live
