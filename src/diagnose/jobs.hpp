#pragma once
// Jobs: which GPUs belong together (issue 23, "one cause per job"). A GPU's job is the job of its
// biggest compute process, found from the first of: the `gpuwatch run` job, the Slurm job, the
// Kubernetes pod, the launcher (parent PID) with the command, the command line with its rank
// numbers taken out and the user, and at last the process name alone (what a Snapshot carries).
// Everything beyond the snapshot is an optional hint (ProcessIdentity) the caller may give.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/finding.hpp"
#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {

// What is known about a process beyond its snapshot row; every member optional (absent: unknown).
struct ProcessIdentity {
  std::optional<std::string> command;        // the full command line (/proc/PID/cmdline)
  std::optional<std::string> user;
  std::optional<std::uint32_t> parent_pid;   // the launcher (torchrun's agent, mpirun, srun)
  std::optional<std::string> run_job;        // `gpuwatch run` job id
  std::optional<std::string> slurm_job;
  std::optional<std::string> pod;            // "namespace/name"
  bool operator==(const ProcessIdentity&) const = default;
};

// COMMAND with the words that differ between the ranks of one launch taken out: a word of digits
// ("--stage 1") or the digits of "--local-rank=3" become "#", so the ranks' commands compare
// equal; numbers inside words ("gpt-7b.yaml") stay, so two configurations stay two jobs.
std::string rank_free_command(std::string_view command);

// The job of process PID named NAME (nullptr or "": unknown), with IDENTITY when known. Nullopt
// when nothing identifies it (no name, no identity). Ids: "run:ID", "slurm:ID", "pod:NS/NAME",
// "pid:PPID:COMMAND", "cmd:USER:COMMAND", "name:NAME" (commands and names rank-free).
std::optional<JobRef> job_of_process(std::uint32_t pid, const std::string* name, const ProcessIdentity* identity);

// One job as the engine follows it over time.
struct JobTrack {
  JobRef ref;
  std::vector<unsigned> members;             // GPUs running it in the current snapshot, ascending
  std::map<unsigned, double> last_member_s;  // every GPU seen running it, and when last
  double last_seen_s = 0;
  std::uint64_t key = 0;                     // hash of ref.id (the findings' sub-key)
  unsigned finding_gpu = 0;                  // the GPU its job-level findings are keyed by
  bool hang_open = false;                    // a collective_hang condition held at the last snapshot
};

// The jobs of the GPUs of each snapshot. assign() sets GpuState::job (an index into jobs(), -1:
// no job) for every GPU of the snapshot at T_S, reusing the previous answer while a GPU's biggest
// process stays the same (a map look-up per GPU only when it changes).
class JobTable {
 public:
  void identify(std::uint32_t pid, ProcessIdentity identity);
  void assign(std::map<unsigned, GpuState>& gpus, double t_s);
  std::vector<JobTrack>& jobs() { return jobs_; }
  const std::vector<JobTrack>& jobs() const { return jobs_; }

 private:
  int index_of(const JobRef& ref, double t_s);
  void prune(std::map<unsigned, GpuState>& gpus, double t_s);

  std::map<std::uint32_t, ProcessIdentity> identities_;
  std::deque<std::uint32_t> identity_order_;  // pids in the order first told: the oldest go first past the bound
  std::uint64_t identity_generation_ = 1;
  std::vector<JobTrack> jobs_;
  std::map<std::string, int> by_id_;
};

}  // namespace gpuwatch::diagnose
