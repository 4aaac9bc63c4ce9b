#pragma once
// The job's command as a child process: the one edge of jobs/ that touches the OS (fork/exec,
// signals, waitpid). SIGINT, SIGTERM, SIGHUP and SIGQUIT another process sends to gpuwatch are
// forwarded to the child (the terminal's reach it directly: same process group). gpuwatch makes
// itself the subreaper of the job, so a worker whose parent exits stays in the job's tree
// (re-parented to gpuwatch, not to init) and is reaped here.
#include <signal.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::jobs {

struct ChildExit {
  int status = 0;                // as a shell reports it: the exit code, 128+N for signal N
  std::optional<int> signal;     // the signal that killed the command
};

class JobChild {
 public:
  // Starts ARGV (argv[0] looked up in PATH) with ENV added to (or replacing in) our environment.
  // Error code 127 when the command is not found, 126 when it cannot be executed.
  static core::Result<std::unique_ptr<JobChild>> start(const std::vector<std::string>& argv,
                                                       const std::vector<std::pair<std::string, std::string>>& env);
  ~JobChild();
  JobChild(const JobChild&) = delete;
  JobChild& operator=(const JobChild&) = delete;

  pid_t pid() const { return pid_; }
  // Waits until the command ends (reaping orphaned workers meanwhile).
  ChildExit wait();

 private:
  explicit JobChild(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::vector<std::pair<int, struct sigaction>> old_actions_;  // restored by the destructor
};

}  // namespace gpuwatch::jobs
