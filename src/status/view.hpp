#pragma once
// What `gpuwatch status` shows besides the snapshot itself: host, local time, the
// user and command of each GPU process (from /proc), and whether the node is
// simulated. Filled by status_command.cpp; read by the pure renderers.
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attribution/attribution.hpp"
#include "diagnose/finding.hpp"
#include "host/process_info.hpp"
#include "host_signals/host_sample.hpp"
#include "core/field.hpp"

namespace gpuwatch::status {

struct StatusContext {
  std::string hostname;
  std::tm local_time{};                             // of the snapshot
  std::map<unsigned, host::ProcessInfo> processes;        // by PID
  std::map<unsigned, attribution::Attribution> owners;    // by PID: container, pod, Slurm job (issue 15); may be empty
  std::optional<std::string> simulated_scenario;    // set when running on the simulated driver
  std::vector<diagnose::Finding> findings;          // active diagnose findings: a line under each GPU they involve
  std::optional<host_signals::HostSample> host;     // the host line (issue 25); absent: --no-host
  std::size_t columns = 0;  // width to fit (terminal::output_columns): < kWideColumns: compact; 0: wide, never cut
};

// From this width on (and with no width at all: a pipe), `status` shows its wide form: one
// line per GPU with every value spelled out and one line per process with GPU %, host CPU %
// and RSS. Narrower, the compact form: two lines per GPU (values; PCIe and a one-line process
// summary), so that 8 GPUs fit an 80x24 terminal.
inline constexpr std::size_t kWideColumns = 160;

// The fields `status` samples and shows (text) or prints (JSON), in JSON order.
const std::vector<core::FieldId>& status_fields();

}  // namespace gpuwatch::status
