#pragma once
// What `gpuwatch status` shows besides the snapshot itself: host, local time, the
// user and command of each GPU process (from /proc), and whether the node is
// simulated. Filled by status_command.cpp; read by the pure renderers.
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/process_info.hpp"
#include "core/field.hpp"

namespace gpuwatch::status {

struct StatusContext {
  std::string hostname;
  std::tm local_time{};                             // of the snapshot
  std::map<unsigned, host::ProcessInfo> processes;        // by PID
  std::optional<std::string> simulated_scenario;    // set when running on the simulated driver
  std::size_t columns = 0;                          // terminal width: command lines are cut to fit; 0: never cut
};

// The fields `status` samples and shows (text) or prints (JSON), in JSON order.
const std::vector<core::FieldId>& status_fields();

}  // namespace gpuwatch::status
