#pragma once
// Runs the command of `gpuwatch sim run` as a child that shares our terminal, forwards
// the termination signals sent to us, and returns its exit status the way a shell does
// (host/child_process.hpp does the work; this says why on stderr).
#include <string>
#include <vector>

namespace gpuwatch::sim_session {

// Runs argv (argv[0] looked up in PATH) and waits for it. Returns its exit code, 128+N
// if it was killed by signal N, 127 if it could not be found and 126 if it could not
// be executed (after saying why on stderr). SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to
// this process by another process are forwarded to the child; those the terminal sends
// reach the child directly (same process group) and are not sent twice.
int run_child_process(const std::vector<std::string>& argv);

}  // namespace gpuwatch::sim_session
