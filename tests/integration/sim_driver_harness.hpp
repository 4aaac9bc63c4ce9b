#pragma once
// Runs checks against the built stand-in driver in a forked child, so that each test
// gets a fresh library with its own scenario (the driver keeps process-wide state).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "nvml/nvml_abi.h"

namespace gpuwatch::sim::testing {

struct Nvml {
  void* lib = nullptr;
#define GW_NVML_FN(name, params) nvmlReturn_t(*name) params = nullptr;
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  const char* (*nvmlErrorString)(nvmlReturn_t) = nullptr;

  bool open(const std::string& dir) {
    lib = dlopen((dir + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
#define GW_NVML_FN(name, params) name = reinterpret_cast<decltype(name)>(dlsym(lib, #name));
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
    nvmlErrorString = reinterpret_cast<decltype(nvmlErrorString)>(dlsym(lib, "nvmlErrorString"));
    return true;
  }
};

inline std::string driver_dir() { return GPUWATCH_SIM_DRIVER_DIR; }
inline std::string legacy_driver_dir() { return driver_dir() + "-legacy"; }

inline long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Writes YAML to a temporary file and returns its path.
inline std::string temp_scenario(const std::string& yaml) {
  char path[] = "/tmp/gpuwatch-sim-test-XXXXXX.yaml";
  int fd = mkstemps(path, 5);
  if (fd >= 0) {
    (void)!write(fd, yaml.data(), yaml.size());
    close(fd);
  }
  return path;
}

// Forks; the child sets ENV, opens the driver in DIR and runs BODY. Returns true when
// the child's checks passed. STDERR_PATH, when given, receives the child's stderr.
inline bool in_child(const std::vector<std::pair<std::string, std::string>>& env, const std::function<void(Nvml&)>& body,
                     const std::string& dir = driver_dir(), const std::string& stderr_path = "") {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (!stderr_path.empty()) (void)!freopen(stderr_path.c_str(), "w", stderr);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    Nvml nvml;
    if (!nvml.open(dir)) {
      std::printf("dlopen %s failed: %s\n", dir.c_str(), dlerror());
      std::fflush(stdout);
      _exit(3);
    }
    body(nvml);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace gpuwatch::sim::testing
