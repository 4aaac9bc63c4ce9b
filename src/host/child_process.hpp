#pragma once
// A command started as our child, the one fork/exec/wait of gpuwatch (`run -- CMD` through
// jobs/job_child.hpp, `sim run -- CMD` through sim_session/child_process.hpp). It shares our
// terminal and process group; SIGINT, SIGTERM, SIGHUP and SIGQUIT another process sends to
// gpuwatch are forwarded to it (those the terminal sends reach it directly and are not sent
// twice; an ignored one stays ignored), until it is reaped. One child at a time.
#include <signal.h>
#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::host {

struct ChildExit {
  int status = 0;             // as a shell reports it: the exit code, 128+N for signal N
  std::optional<int> signal;  // the signal that killed the command
};

class ChildProcess {
 public:
  // Starts ARGV (argv[0] looked up in PATH; not empty) with ENV added to (or replacing in) our
  // environment. The error says "cannot run 'ARGV0': why"; its code is 127 when the command is
  // not found, 126 when it cannot be executed (the failed child is reaped).
  static core::Result<std::unique_ptr<ChildProcess>> start(
      const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env = {});
  ~ChildProcess();  // our signal dispositions as they were
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits until the command ends.
  ChildExit wait();
  // The same, reaping every other child meanwhile: for a subreaper, whose orphaned
  // grandchildren are re-parented to it (jobs/job_child.hpp).
  ChildExit wait_reaping_others();

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  ChildExit wait_for(pid_t which);
  pid_t pid_;
  std::vector<std::pair<int, struct sigaction>> old_actions_;  // restored by the destructor
};

}  // namespace gpuwatch::host
