#pragma once
// Runs a program with INPUT on its stdin and a time limit (the exec and desktop channels).
// The program gets its own process group; on the time limit or CANCEL the whole group is
// killed (SIGKILL), so stop() is prompt and nothing is left behind.
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "notify/send_result.hpp"

namespace gpuwatch::notify {

// ARGV[0] is looked up on PATH. Accepted: exit status 0. The answer is the start of what the
// program wrote on stdout and stderr.
// ENVIRONMENT ("NAME=value" entries): the program's whole environment; null: this process's.
SendResult run_process(const std::vector<std::string>& argv, const std::string& input, std::chrono::milliseconds timeout,
                       const std::atomic<bool>* cancel, const std::vector<std::string>* environment = nullptr);

}  // namespace gpuwatch::notify
