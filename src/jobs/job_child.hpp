#pragma once
// The job's command as a child process: the one edge of jobs/ that touches the OS. The fork/exec,
// the signals forwarded and the wait are host/child_process.hpp's; what is the job's own: gpuwatch
// makes itself the subreaper of the job, so a worker whose parent exits stays in the job's tree
// (re-parented to gpuwatch, not to init) and is reaped here.
#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "host/child_process.hpp"

namespace gpuwatch::jobs {

using ChildExit = host::ChildExit;  // the exit code as a shell reports it, and the signal

class JobChild {
 public:
  // Starts ARGV (argv[0] looked up in PATH) with ENV added to (or replacing in) our environment.
  // Error code 127 when the command is not found, 126 when it cannot be executed.
  static core::Result<std::unique_ptr<JobChild>> start(const std::vector<std::string>& argv,
                                                       const std::vector<std::pair<std::string, std::string>>& env);

  pid_t pid() const { return child_->pid(); }
  // Waits until the command ends (reaping orphaned workers meanwhile).
  ChildExit wait() { return child_->wait_reaping_others(); }

 private:
  explicit JobChild(std::unique_ptr<host::ChildProcess> child) : child_(std::move(child)) {}
  std::unique_ptr<host::ChildProcess> child_;
};

}  // namespace gpuwatch::jobs
