#pragma once
// InfiniBand (and RoCE) port counters, /sys/class/infiniband/<device>/ports/<port>/counters/
// (the IBTA PortCounters attribute; kernel: Documentation/ABI/stable/sysfs-class-infiniband).
// port_rcv_data and port_xmit_data count octets divided by 4 (the spec's 32-bit "words"):
// bytes are 4 times the value. port_rcv_packets and port_xmit_packets count packets.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::host_signals {

struct IbPortCounters {
  std::string device;  // "mlx5_0"
  std::string port;    // "1"
  std::optional<std::uint64_t> rx_bytes, tx_bytes, rx_packets, tx_packets;
};

// One counter file's text ("123456\n").
std::optional<std::uint64_t> parse_counter(std::string_view text);
// port_{rcv,xmit}_data's value in bytes.
inline constexpr std::uint64_t ib_data_bytes(std::uint64_t words) { return words * 4; }

}  // namespace gpuwatch::host_signals
