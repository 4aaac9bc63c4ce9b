#include "host_signals/host_fields.hpp"

#include <cmath>

namespace gpuwatch::host_signals {
namespace {

std::optional<double> as_double(const std::optional<std::uint64_t>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

void assign_value(std::optional<double>& member, std::optional<double> value) { member = value; }
void assign_value(std::optional<std::uint64_t>& member, std::optional<double> value) {
  if (value && *value >= 0) member = static_cast<std::uint64_t>(std::llround(*value));
  else member.reset();
}

}  // namespace

#define GPUWATCH_HOST_FIELD(member)                                                                   \
  HostField {                                                                                         \
    #member, [](const HostSample& s) -> std::optional<double> { return s.member; },                 \
        [](HostSample& s, std::optional<double> v) { assign_value(s.member, v); }                   \
  }
#define GPUWATCH_HOST_BYTES(member)                                                                   \
  HostField {                                                                                         \
    #member, [](const HostSample& s) { return as_double(s.member); },                               \
        [](HostSample& s, std::optional<double> v) { assign_value(s.member, v); }, true             \
  }

const std::vector<HostField>& host_fields() {
  static const std::vector<HostField> fields = {
      GPUWATCH_HOST_FIELD(interval_s),
      GPUWATCH_HOST_FIELD(cpu_busy_percent),
      GPUWATCH_HOST_FIELD(cpu_iowait_percent),
      GPUWATCH_HOST_FIELD(cpu_steal_percent),
      GPUWATCH_HOST_FIELD(cpu_pressure_some_percent),
      GPUWATCH_HOST_FIELD(memory_available_percent),
      GPUWATCH_HOST_BYTES(memory_total_bytes),
      GPUWATCH_HOST_BYTES(memory_available_bytes),
      GPUWATCH_HOST_FIELD(memory_pressure_some_percent),
      GPUWATCH_HOST_FIELD(memory_pressure_full_percent),
      GPUWATCH_HOST_BYTES(swap_total_bytes),
      GPUWATCH_HOST_BYTES(swap_used_bytes),
      GPUWATCH_HOST_FIELD(swap_in_pages_per_s),
      GPUWATCH_HOST_FIELD(swap_out_pages_per_s),
      GPUWATCH_HOST_FIELD(disk_read_bytes_per_s),
      GPUWATCH_HOST_FIELD(disk_write_bytes_per_s),
      GPUWATCH_HOST_FIELD(disk_busy_percent),
      GPUWATCH_HOST_FIELD(io_pressure_some_percent),
      GPUWATCH_HOST_FIELD(io_pressure_full_percent),
      GPUWATCH_HOST_FIELD(net_rx_bytes_per_s),
      GPUWATCH_HOST_FIELD(net_tx_bytes_per_s),
      GPUWATCH_HOST_FIELD(ib_rx_bytes_per_s),
      GPUWATCH_HOST_FIELD(ib_tx_bytes_per_s),
  };
  return fields;
}

#undef GPUWATCH_HOST_FIELD
#undef GPUWATCH_HOST_BYTES

}  // namespace gpuwatch::host_signals
