// The simulated host's files under the host root (host_signal_tree.hpp); their texts are
// host_signal_files.cpp's.
#include "sim/engine/host_signal_tree.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "sim/engine/host_signal_files.hpp"

namespace gpuwatch::sim {

namespace fs = std::filesystem;

namespace host_signal_tree_detail {

// The kernel's comm: the program's file name, at most 15 characters.
std::string comm_of(const std::string& command) {
  std::string program = command.substr(0, command.find(' '));
  if (auto slash = program.rfind('/'); slash != std::string::npos) program = program.substr(slash + 1);
  if (program.empty()) program = "python";
  return program.substr(0, 15);
}

}  // namespace host_signal_tree_detail

using host_signal_tree_detail::comm_of;

HostSignalTree::HostSignalTree(const Simulation& sim, fs::path root, std::int64_t epoch_ms)
    : sim_(sim), root_(std::move(root)), epoch_ms_(epoch_ms), integral_(sim) {}

core::Result<void> HostSignalTree::render_at_unix_ms(std::int64_t unix_ms) {
  return render_at(static_cast<double>(unix_ms - epoch_ms_) / 1000.0 * sim_.scenario().time_scale);
}

core::Result<void> HostSignalTree::render_at(double t) {
  const HostSignals& signals = *sim_.scenario().host.signals;
  host_files::HostMoment m;
  m.totals = integral_.at(t);
  m.now = host_values_at(sim_, t);
  m.avg10 = integral_.window_mean(t, 10);
  m.avg60 = integral_.window_mean(t, 60);
  m.avg300 = integral_.window_mean(t, 300);
  bool ok = true;
  auto put = [&](const fs::path& relative, const std::string& text) { ok = writer_.write(root_ / relative, text) && ok; };
  put("proc/stat", host_files::proc_stat(signals, m));
  put("proc/pressure/cpu", host_files::pressure(m, HostValue::CpuPressureSome, HostValue::CpuPressureSome, false));
  put("proc/pressure/memory", host_files::pressure(m, HostValue::MemoryPressureSome, HostValue::MemoryPressureFull, true));
  put("proc/pressure/io", host_files::pressure(m, HostValue::IoPressureSome, HostValue::IoPressureFull, true));
  put("proc/meminfo", host_files::meminfo(signals, m));
  put("proc/vmstat", host_files::vmstat(m));
  put("proc/diskstats", host_files::diskstats(signals, m));
  const std::string block = host_files::block_stat(signals, m);
  for (const auto& disk : signals.disks) put(fs::path("sys/block") / disk / "stat", block);
  put("proc/net/dev", host_files::net_dev(signals, m));
  for (const auto& device : signals.infiniband)
    for (unsigned port = 1; port <= device.ports; ++port) {
      const fs::path counters = fs::path("sys/class/infiniband") / device.device / "ports" / std::to_string(port) / "counters";
      put(counters / "port_rcv_data", host_files::ib_counter(signals, m, true, false));
      put(counters / "port_xmit_data", host_files::ib_counter(signals, m, false, false));
      put(counters / "port_rcv_packets", host_files::ib_counter(signals, m, true, true));
      put(counters / "port_xmit_packets", host_files::ib_counter(signals, m, false, true));
    }
  ok = render_processes(m.now, m.totals) && ok;
  if (!ok) return core::make_error(fmt::format("cannot write the simulated host files under {}", root_.string()));
  return {};
}

bool HostSignalTree::render_processes(const HostValues& now, const HostTotals& totals) {
  bool ok = true;
  std::set<unsigned> written;
  const auto workers = static_cast<unsigned>(host_value(now, HostValue::Workers));
  std::size_t process_index = 0;  // among every scenario process, for stable worker PIDs
  for (unsigned g = 0; g < sim_.gpu_count(); ++g) {
    const auto& procs = sim_.scenario().gpus[g].processes;
    for (std::size_t i = 0; i < procs.size(); ++i, ++process_index) {
      const unsigned pid = sim_.live_pid(g, i);
      if (pid == 0 || written.contains(pid)) continue;  // no PID, or one process on several GPUs
      written.insert(pid);
      const std::string comm = comm_of(procs[i].command);
      const fs::path dir = root_ / "proc" / std::to_string(pid);
      std::string children;
      for (unsigned k = 0; k < workers && k < totals.worker_cpu_s.size(); ++k) {
        const unsigned child = host_files::worker_pid(process_index, k);
        children += fmt::format("{} ", child);
        written.insert(child);
        const fs::path child_dir = root_ / "proc" / std::to_string(child);
        ok = writer_.write(child_dir / "stat", host_files::process_stat(child, comm, pid, totals.worker_cpu_s[k], 1)) && ok;
        ok = writer_.write(child_dir / "task" / std::to_string(child) / "children", "") && ok;
      }
      const double own_cpu_s = totals.integral[host_value_index(HostValue::ProcessCpu)];
      ok = writer_.write(dir / "stat", host_files::process_stat(pid, comm, 1, own_cpu_s, 8)) && ok;
      ok = writer_.write(dir / "task" / std::to_string(pid) / "children", children) && ok;
    }
  }
  // Processes gone since the last render: a GPU process's files (its folder may hold the AMD/Intel
  // tree's fdinfo), a worker's whole folder.
  for (unsigned pid : pids_written_) {
    if (written.contains(pid)) continue;
    const fs::path dir = root_ / "proc" / std::to_string(pid);
    if (pid >= host_files::kWorkerPidBase) {
      writer_.remove(dir);
    } else {
      writer_.remove(dir / "stat");
      writer_.remove(dir / "task");
    }
  }
  pids_written_ = std::move(written);
  return ok;
}

}  // namespace gpuwatch::sim
