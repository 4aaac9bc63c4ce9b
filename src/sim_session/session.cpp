#include "sim_session/session.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string_view>
#include <unistd.h>
#include <filesystem>
#include <fmt/core.h>
#include <mutex>
#include <set>
#include <system_error>

#include "core/did_you_mean.hpp"
#include "core/exit_codes.hpp"
#include "sim_session/driver_location.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::sim_session {

namespace {

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto& s : sim::list_builtin_scenarios()) names.push_back(s.name);
  return names;
}

constexpr std::string_view kHostFolderPrefix = "gpuwatch-host-";

// Removes the simulated hosts of simulations whose process is gone: one killed (SIGKILL) or
// ended with std::_Exit (serve, top, a hung NVML call) leaves its folder behind.
void sweep_stale_host_folders(const std::filesystem::path& base) {
  std::error_code ec;
  std::filesystem::directory_iterator it(base, ec);
  for (int seen = 0; !ec && it != std::filesystem::directory_iterator() && seen < 100000; it.increment(ec), ++seen) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kHostFolderPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + kHostFolderPrefix.size(), nullptr, 10);
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

// Where the simulated host's folders go: $TMPDIR when set, else /dev/shm when it is a writable
// folder (RAM: a simulated host rewrites its /proc counters at every tick, ~65 files for a host
// scenario; on ext4 the renames cost ~25 ms a tick, a day of `sim record` 40 minutes; on tmpfs ~2 ms),
// else the system's temporary folder.
std::filesystem::path host_root_base() {
  std::error_code ec;
  const char* tmpdir = std::getenv("TMPDIR");
  if ((tmpdir == nullptr || *tmpdir == '\0') && std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK | X_OK) == 0)
    return "/dev/shm";
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  return base;
}

// A fresh folder for the simulated host: <host_root_base()>/gpuwatch-host-PID-XXXXXX.
std::filesystem::path make_host_root_folder() {
  const std::filesystem::path base = host_root_base();
  sweep_stale_host_folders(base);
  std::error_code ec;
  if (auto tmp = std::filesystem::temp_directory_path(ec); !ec && tmp != base) sweep_stale_host_folders(tmp);  // an older gpuwatch's
  std::string pattern = (base / fmt::format("{}{}-XXXXXX", kHostFolderPrefix, ::getpid())).string();
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

// The folders held now, for remove_simulated_hosts_now().
std::mutex& held_folders_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::set<std::string>& held_folders() {
  static auto* folders = new std::set<std::string>;  // never destroyed: usable until the very end
  return *folders;
}

}  // namespace

void remove_simulated_hosts_now() {
  std::lock_guard lock(held_folders_mutex());
  for (const auto& folder : held_folders()) {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
  }
  held_folders().clear();
}

TemporaryFolder::~TemporaryFolder() { adopt({}); }

void TemporaryFolder::adopt(std::filesystem::path folder) {
  std::lock_guard lock(held_folders_mutex());
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    held_folders().erase(path_.string());
  }
  path_ = std::move(folder);
  if (!path_.empty()) held_folders().insert(path_.string());
}

std::filesystem::path SimSession::driver_library() const { return driver_dir / kSimDriverLibrary; }

std::vector<EnvAssignment> SimSession::environment(bool for_child) const {
  SimEnvironmentInput input{driver_dir, scenario, standin_pids, for_child, host_root.path(), ze_driver, vendor_files};
  return sim_environment(input, [](const char* name) { return std::getenv(name); }, unix_time_ms());
}

core::Result<std::string> checked_scenario(std::string_view scenario_argument) {
  const std::vector<std::string> names = builtin_names();
  std::string scenario = resolve_scenario_argument(scenario_argument, names);
  std::error_code ec;
  if (std::find(names.begin(), names.end(), scenario) == names.end() && !std::filesystem::exists(scenario, ec)) {
    // A misspelt name (issue 9: `--simulate demoo`): the closest built-ins, and where the list is.
    return core::make_error(fmt::format("scenario '{}': no such built-in scenario or file.{} `gpuwatch sim list` "
                                        "lists the built-in scenarios.",
                                        scenario, core::did_you_mean(scenario, names)),
                            core::kExitUsage);
  }
  auto valid = sim::validate_scenario(scenario);
  if (!valid) return core::make_error(valid.error().message, core::kExitUsage);
  return scenario;
}

core::Result<std::unique_ptr<SimSession>> start_sim_session(std::string_view scenario_argument) {
  auto scenario = checked_scenario(scenario_argument);
  if (!scenario) return scenario.error();
  auto session = std::make_unique<SimSession>();
  session->scenario = *scenario;

  // `driver: {symbols: legacy}` scenarios run on the build without the _v2/_v3 symbols.
  auto legacy = sim::needs_legacy_driver(session->scenario);
  if (!legacy) return core::make_error(legacy.error().message, core::kExitUsage);
  auto driver_dir = find_sim_driver_dir(*legacy ? sim::kLegacyDriverDirName : sim::kDriverDirName);
  if (!driver_dir) return core::make_error(driver_dir.error().message, core::kExitRuntimeError);
  session->driver_dir = *driver_dir;

  // Intel GPUs are served by the simulated Level Zero driver too (issue 28). Without it (a build
  // without the sim_ze target) they still have their kernel files; what only Level Zero tells is absent.
  auto vendors = sim::scenario_vendors(session->scenario);
  if (!vendors) return core::make_error(vendors.error().message, core::kExitUsage);
  if (vendors->intel)
    if (auto ze = find_sim_ze_driver()) session->ze_driver = *ze;
  // The simulated host's /proc and /sys (`host: signals:`) are rendered by the same machinery.
  auto host_signals = sim::scenario_has_host_signals(session->scenario);
  if (!host_signals) return core::make_error(host_signals.error().message, core::kExitUsage);
  session->vendor_files = vendors->amd || vendors->intel || *host_signals;

  // The simulated host (`host:`) that `gpuwatch doctor` reads instead of the real /proc and /dev.
  if (auto folder = make_host_root_folder(); !folder.empty()) {
    session->host_root.adopt(folder);
    if (auto written = sim::write_simulated_host(session->scenario, folder.string()); !written)
      return core::make_error(written.error().message, core::kExitRuntimeError);
  }

  auto specs = sim::standin_processes(session->scenario);
  if (!specs) return core::make_error(specs.error().message, core::kExitUsage);
  std::vector<std::vector<std::string>> command_lines;
  for (const auto& spec : *specs) command_lines.push_back(spec.argv);
  auto pids = session->standins.start(command_lines, current_executable());
  if (!pids) return core::make_error(pids.error().message, core::kExitRuntimeError);
  session->standin_pids = sim::standin_pid_env(*specs, *pids);
  return session;
}

}  // namespace gpuwatch::sim_session
