#pragma once
// What the simulated host's /proc and /sys files hold (pure: text from the integrals and values of
// one moment, host_model.hpp). The formats are the kernel's (docs/simulator.md, "The simulated
// host (issue 25)", cites the documentation of each), as src/host_signals/ reads them.
#include <cstdint>
#include <string>

#include "sim/engine/host_model.hpp"
#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim::host_files {

inline constexpr double kUserHz = 100;        // USER_HZ: /proc/stat and /proc/<pid>/stat ticks per second
inline constexpr double kBootIdleS = 3600;    // the host was up (idle) this long before scenario time 0
inline constexpr double kSectorBytes = 512;   // /proc/diskstats sectors, whatever the disk's block size
inline constexpr double kIbWordBytes = 4;     // port_{rcv,xmit}_data count 4-byte words
inline constexpr double kIbPacketBytes = 4096;
inline constexpr double kNetPacketBytes = 1500;
inline constexpr double kDiskRequestBytes = 128 * 1024;
inline constexpr unsigned kWorkerPidBase = 4'100'000;  // made-up worker PIDs (pid_max is at most 4,194,304)
inline constexpr unsigned kWorkerSlotsPerProcess = 64;

// One moment of the host: integrals from scenario time 0, the values now, PSI's window means.
struct HostMoment {
  HostTotals totals;
  HostValues now{};
  HostValues avg10{}, avg60{}, avg300{};
};

std::string proc_stat(const HostSignals& signals, const HostMoment& m);
// /proc/pressure/cpu, memory or io: SOME and FULL are the values of the two lines (cpu's full: none, 0).
std::string pressure(const HostMoment& m, HostValue some, HostValue full, bool has_full);
std::string meminfo(const HostSignals& signals, const HostMoment& m);
std::string vmstat(const HostMoment& m);
std::string diskstats(const HostSignals& signals, const HostMoment& m);
std::string block_stat(const HostSignals& signals, const HostMoment& m);  // sys/block/<disk>/stat: one disk's share
std::string net_dev(const HostSignals& signals, const HostMoment& m);
// port_rcv_data, port_xmit_data, port_rcv_packets, port_xmit_packets of one port (each port a share).
std::string ib_counter(const HostSignals& signals, const HostMoment& m, bool receive, bool packets);
// /proc/<pid>/stat: CPU_S seconds of CPU so far (a tenth of it system time).
std::string process_stat(unsigned pid, const std::string& comm, unsigned ppid, double cpu_s, unsigned threads);
// A worker's PID: slot SLOT of the GPU process at PROCESS_INDEX among the scenario's processes.
unsigned worker_pid(std::size_t process_index, unsigned slot);

}  // namespace gpuwatch::sim::host_files
