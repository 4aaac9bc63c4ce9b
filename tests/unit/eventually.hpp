#pragma once
// Bounded waits for tests of threaded code (the collector, the Xid watcher, top's local source),
// and how many threads this process runs.
#include <dirent.h>

#include <chrono>
#include <thread>

namespace gpuwatch::testing {

// Whether PRED becomes true within TIMEOUT, polled every 5 ms.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// The threads of this process (/proc/self/task).
inline int thread_count() {
  int n = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* e = readdir(dir)) n += e->d_name[0] != '.';
    closedir(dir);
  }
  return n;
}

}  // namespace gpuwatch::testing
