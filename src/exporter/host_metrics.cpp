#include "exporter/host_metrics.hpp"

#include <map>

#include "exporter/text_family.hpp"
#include "host_signals/host_fields.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::exporter {
namespace {

bool host_key_ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The HELP of each host_fields() key; a key the table gains later gets a generic one.
std::string host_help(std::string_view key) {
  static const std::map<std::string_view, std::string_view> help = {
      {"interval_s", "Seconds between the two host readings the rates are taken over"},
      {"cpu_busy_percent", "Share of all CPUs' time busy over the interval, 0-1 (/proc/stat)"},
      {"cpu_iowait_percent", "Share of all CPUs' time idle waiting for I/O over the interval, 0-1 (/proc/stat)"},
      {"cpu_steal_percent", "Share of all CPUs' time taken by the hypervisor over the interval, 0-1 (/proc/stat)"},
      {"cpu_pressure_some_percent", "CPU pressure: share of time some task waited for a CPU, 10 s average, 0-1 (/proc/pressure/cpu)"},
      {"memory_available_percent", "Memory available for new work, share of the total, 0-1 (/proc/meminfo)"},
      {"memory_total_bytes", "Memory installed (/proc/meminfo MemTotal)"},
      {"memory_available_bytes", "Memory available for new work (/proc/meminfo MemAvailable)"},
      {"memory_pressure_some_percent", "Memory pressure: share of time some task stalled on memory, 10 s average, 0-1 (/proc/pressure/memory)"},
      {"memory_pressure_full_percent", "Memory pressure: share of time all tasks stalled on memory, 10 s average, 0-1 (/proc/pressure/memory)"},
      {"swap_total_bytes", "Swap space (/proc/meminfo SwapTotal)"},
      {"swap_used_bytes", "Swap space in use (/proc/meminfo SwapTotal - SwapFree)"},
      {"swap_in_pages_per_s", "Pages swapped in per second over the interval (/proc/vmstat pswpin)"},
      {"swap_out_pages_per_s", "Pages swapped out per second over the interval (/proc/vmstat pswpout)"},
      {"disk_read_bytes_per_s", "Bytes read per second from the whole disks, summed, over the interval (/proc/diskstats)"},
      {"disk_write_bytes_per_s", "Bytes written per second to the whole disks, summed, over the interval (/proc/diskstats)"},
      {"disk_busy_percent", "Share of time the busiest disk had I/O in flight over the interval, 0-1 (/proc/diskstats)"},
      {"io_pressure_some_percent", "I/O pressure: share of time some task stalled on I/O, 10 s average, 0-1 (/proc/pressure/io)"},
      {"io_pressure_full_percent", "I/O pressure: share of time all tasks stalled on I/O, 10 s average, 0-1 (/proc/pressure/io)"},
      {"net_rx_bytes_per_s", "Bytes received per second over the network interfaces but lo, summed (/proc/net/dev)"},
      {"net_tx_bytes_per_s", "Bytes sent per second over the network interfaces but lo, summed (/proc/net/dev)"},
      {"ib_rx_bytes_per_s", "Bytes received per second over the InfiniBand ports, summed (port_rcv_data)"},
      {"ib_tx_bytes_per_s", "Bytes sent per second over the InfiniBand ports, summed (port_xmit_data)"},
  };
  auto found = help.find(key);
  return found != help.end() ? std::string(found->second) : "Host signal " + std::string(key) + " (docs/host_signals.md)";
}

std::string host_value(double value, bool whole) {
  return whole ? std::to_string(static_cast<std::uint64_t>(value)) : format_double(value);
}

// One per-item family: a series per item with the value present.
template <typename Item, typename Labels, typename Value>
void encode_host_items(std::string& out, std::string_view name, std::string_view help, const std::vector<Item>& items,
                  Labels labels, Value value, double scale = 1) {
  Family family(out, name, "gauge", help);
  for (const Item& item : items) {
    const std::optional<double> v = value(item);
    if (v) family.sample(labels(item), format_double(*v * scale));
  }
}

}  // namespace

HostMetric host_metric_of(std::string_view key) {
  const std::string prefix = "gpuwatch_host_";
  std::string_view stem = key;
  if (host_key_ends_with(key, "_percent")) {
    stem.remove_suffix(std::string_view("_percent").size());
    return {prefix + std::string(stem) + "_ratio", 0.01};
  }
  if (host_key_ends_with(key, "_per_s")) {
    stem.remove_suffix(std::string_view("_s").size());
    return {prefix + std::string(stem) + "_second", 1};
  }
  if (host_key_ends_with(key, "_s")) {
    stem.remove_suffix(std::string_view("_s").size());
    return {prefix + std::string(stem) + "_seconds", 1};
  }
  return {prefix + std::string(key), 1};
}

void encode_host_native(const live::LiveView& view, bool per_process, std::string& out) {
  if (view.snapshot == nullptr || !view.snapshot->host) return;
  const host_signals::HostSample& host = *view.snapshot->host;
  for (const auto& field : host_signals::host_fields()) {
    const auto value = field.get(host);
    if (!value) continue;
    const HostMetric metric = host_metric_of(field.key);
    Family(out, metric.name, "gauge", host_help(field.key)).sample("", host_value(*value * metric.scale, field.whole));
  }
  using Disk = host_signals::DiskRates;
  auto disk = [](const Disk& d) {
    std::string l;
    add_label(l, "device", d.name);
    return l;
  };
  encode_host_items(out, "gpuwatch_host_disk_device_read_bytes_per_second", "Bytes read per second from the disk (/proc/diskstats)",
               host.disks, disk, [](const Disk& d) { return d.read_bytes_per_s; });
  encode_host_items(out, "gpuwatch_host_disk_device_write_bytes_per_second", "Bytes written per second to the disk (/proc/diskstats)",
               host.disks, disk, [](const Disk& d) { return d.write_bytes_per_s; });
  encode_host_items(out, "gpuwatch_host_disk_device_busy_ratio", "Share of time the disk had I/O in flight over the interval, 0-1 (/proc/diskstats)",
               host.disks, disk, [](const Disk& d) { return d.busy_percent; }, 0.01);
  using Interface = host_signals::InterfaceRates;
  auto interface = [](const Interface& i) {
    std::string l;
    add_label(l, "interface", i.name);
    return l;
  };
  encode_host_items(out, "gpuwatch_host_net_interface_rx_bytes_per_second", "Bytes received per second on the interface (/proc/net/dev)",
               host.interfaces, interface, [](const Interface& i) { return i.rx_bytes_per_s; });
  encode_host_items(out, "gpuwatch_host_net_interface_tx_bytes_per_second", "Bytes sent per second on the interface (/proc/net/dev)",
               host.interfaces, interface, [](const Interface& i) { return i.tx_bytes_per_s; });
  using Port = host_signals::IbPortRates;
  auto port = [](const Port& p) {
    std::string l;
    add_label(l, "device", p.device);
    add_label(l, "port", p.port);
    return l;
  };
  encode_host_items(out, "gpuwatch_host_ib_port_rx_bytes_per_second", "Bytes received per second on the InfiniBand port (port_rcv_data)",
               host.ib_ports, port, [](const Port& p) { return p.rx_bytes_per_s; });
  encode_host_items(out, "gpuwatch_host_ib_port_tx_bytes_per_second", "Bytes sent per second on the InfiniBand port (port_xmit_data)",
               host.ib_ports, port, [](const Port& p) { return p.tx_bytes_per_s; });
  encode_host_items(out, "gpuwatch_host_ib_port_rx_packets_per_second", "Packets received per second on the InfiniBand port (port_rcv_packets)",
               host.ib_ports, port, [](const Port& p) { return p.rx_packets_per_s; });
  encode_host_items(out, "gpuwatch_host_ib_port_tx_packets_per_second", "Packets sent per second on the InfiniBand port (port_xmit_packets)",
               host.ib_ports, port, [](const Port& p) { return p.tx_packets_per_s; });
  if (!per_process) return;
  using Tree = host_signals::ProcessTreeRates;
  auto root = [](const Tree& t) {
    std::string l;
    add_label(l, "pid", std::to_string(t.pid));
    return l;
  };
  encode_host_items(out, "gpuwatch_host_process_tree_cpu_cores",
               "CPU of a GPU process and its descendants (DataLoader workers) over the interval, in cores (1: one core busy)",
               host.process_trees, root, [](const Tree& t) { return t.cpu_cores; });
  encode_host_items(out, "gpuwatch_host_process_tree_processes", "Processes in a GPU process's tree, the process included",
               host.process_trees, root, [](const Tree& t) { return std::optional<double>(static_cast<double>(t.processes)); });
}

}  // namespace gpuwatch::exporter
