#pragma once
// Stand-in processes: real processes whose /proc/<pid>/cmdline shows a simulated
// process's command line, so that clients that look PIDs up in /proc (gpustat, nvtop,
// gpuwatch itself) see them. Each is this executable started again with the command
// line as its argv and GPUWATCH_STANDIN set: main() then calls run_standin(), which
// sleeps until it is killed. A stand-in never outlives the process that started it:
// it is killed by stop() / the destructor, and by the kernel (PR_SET_PDEATHSIG) if
// its parent dies in any other way.
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::sim_session {

inline constexpr const char* kStandinEnv = "GPUWATCH_STANDIN";  // "<parent pid>:<ready fd>"

// True when this process was started as a stand-in.
bool standin_requested();

// The stand-in's life: checks that its parent is alive, names itself after argv[0],
// tells the parent it is ready and sleeps until killed. Never returns.
[[noreturn]] void run_standin();

class StandinGroup {
 public:
  StandinGroup() = default;
  ~StandinGroup();
  StandinGroup(const StandinGroup&) = delete;
  StandinGroup& operator=(const StandinGroup&) = delete;

  // Starts one stand-in per command line by running `executable` (which must call
  // run_standin() when GPUWATCH_STANDIN is set) and waits until each is ready.
  // Returns their PIDs in order. On failure, the ones already started are stopped.
  core::Result<std::vector<int>> start(const std::vector<std::vector<std::string>>& command_lines,
                                       const std::filesystem::path& executable);

  // Kills and reaps every stand-in. Safe to call twice.
  void stop();

  const std::vector<int>& pids() const { return pids_; }

 private:
  core::Result<int> start_one(const std::vector<std::string>& argv, const std::filesystem::path& executable);
  std::vector<int> pids_;
};

}  // namespace gpuwatch::sim_session
