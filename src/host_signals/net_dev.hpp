#pragma once
// /proc/net/dev (Documentation/filesystems/proc.rst, "1.4 Networking info in /proc/net"): bytes
// received and sent per interface since it came up, in the network namespace of the reader.
// The loopback interface is left out: it is no traffic of the machine's.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::host_signals {

struct InterfaceCounters {
  std::string name;
  std::uint64_t rx_bytes = 0, tx_bytes = 0;
};

std::vector<InterfaceCounters> parse_net_dev(std::string_view text);

}  // namespace gpuwatch::host_signals
