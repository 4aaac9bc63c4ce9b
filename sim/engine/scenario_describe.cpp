#include "sim/engine/scenario_describe.hpp"

#include "core/sink_text.hpp"
#include <cmath>
#include <fmt/format.h>

#include "sim/engine/host_values.hpp"
#include "sim/engine/nvml_errors.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {

namespace scenario_describe_detail {

// `host: signals:`: the machine, then each phase's values that differ from the table's fallbacks.
void describe_host_signals(const HostSignals& h, std::string& out) {
  const auto shown = [](std::string_view text) { return core::terminal_text(text); };
  std::string devices;
  for (const auto& d : h.disks) devices += fmt::format(" disk {}", shown(d));
  for (const auto& i : h.interfaces) devices += fmt::format(" net {}", shown(i));
  for (const auto& ib : h.infiniband) devices += fmt::format(" ib {} ({} port(s))", shown(ib.device), ib.ports);
  out += fmt::format("host signals: {} cores, {} GiB memory, {} GiB swap,{}\n", h.cores, h.memory_bytes / (1024.0 * 1024 * 1024),
                     h.swap_bytes / (1024.0 * 1024 * 1024), devices.empty() ? std::string(" no devices") : devices);
  const HostValues fallback = default_host_values();
  auto values = [&](const HostValues& v, const HostValues& base) {
    std::string text;
    for (const auto& info : host_value_table()) {
      const double x = v[host_value_index(info.value)];
      if (x != base[host_value_index(info.value)]) text += fmt::format(" {}={}{}", info.key, x, host_unit_name(info.unit));
    }
    return text.empty() ? std::string(" (defaults)") : text;
  };
  for (const auto& ph : h.phases) {
    out += fmt::format("  host phase {}s:{}\n", std::round(ph.duration_s * 1000) / 1000, values(ph.values, fallback));
    if (ph.has_gaps) out += fmt::format("    while GPU 0 sits in a gap:{}\n", values(ph.gap_values, ph.values));
  }
}

}  // namespace scenario_describe_detail

using scenario_describe_detail::describe_host_signals;

std::string describe(const Scenario& sc) {
  std::string out;
  // Every string the scenario gave as a terminal may show it (issue 31).
  const auto shown = [](std::string_view text) { return core::terminal_text(text); };
  out += fmt::format("scenario {}: {}\n", shown(sc.name), shown(sc.description));
  out += fmt::format("source: {}\n", shown(sc.source));
  out += fmt::format("driver {} (CUDA {}.{}), symbols: {}, time scale x{}\n", shown(sc.driver.version),
                     sc.driver.cuda_version / 1000, (sc.driver.cuda_version % 1000) / 10,
                     sc.driver.legacy_symbols ? "legacy (no _v2/_v3)" : "current", sc.time_scale);
  if (sc.start_ms) out += fmt::format("start time: {} ms since the epoch (sim record renders from it)\n", *sc.start_ms);
  if (sc.driver.init_error) out += fmt::format("nvmlInit fails with {} ({})\n", sc.driver.init_error, nvml_error_text(sc.driver.init_error));
  out += fmt::format("{} GPU(s)", sc.gpus.size());
  const std::size_t nvidia = gpus_of_vendor(sc, core::Vendor::Nvidia).size();
  if (nvidia != sc.gpus.size())  // a mixed node: how many each vendor has (NVML serves NVIDIA's only)
    out += fmt::format(": {} NVIDIA, {} AMD, {} Intel", nvidia, gpus_of_vendor(sc, core::Vendor::Amd).size(),
                       gpus_of_vendor(sc, core::Vendor::Intel).size());
  out += "\n";
  for (std::size_t g = 0; g < sc.gpus.size(); ++g) {
    const auto& gpu = sc.gpus[g];
    out += fmt::format("GPU {}: {} {} ({}) {}\n", g, core::to_string(gpu.vendor),
                       shown(display_text(gpu.values[key_index(Key::Name)])), gpu.model,
                       shown(display_text(gpu.values[key_index(Key::Uuid)])));
    if (gpu.phases.empty()) out += "  timeline: static values\n";
    else {
      out += fmt::format("  timeline ({}):", gpu.loop ? "loops" : "holds the last phase");
      for (const auto& ph : gpu.phases)  // to the millisecond: "replay 1.1s", not 1.0999999046325684s
        out += fmt::format(" {} {}s;", phase_kind_name(ph.kind), std::round(ph.duration_s * 1000) / 1000);
      out += "\n";
    }
    for (const auto& p : gpu.processes)
      out += fmt::format("  process: {} (user {}, {} MiB{})\n", shown(p.command), p.user.empty() ? "-" : shown(p.user), p.memory_mib,
                         p.pid ? fmt::format(", pid {}", *p.pid)
                               : !p.pid_env.empty() ? fmt::format(", pid from ${}", shown(p.pid_env))
                               : !p.pid_file.empty() ? fmt::format(", pid from file {}", shown(p.pid_file)) : ", stand-in");
    for (const auto& m : gpu.mig)
      out += fmt::format("  MIG instance {} ({} MiB, GI {}, {} process(es))\n", shown(m.profile), m.memory_mib, m.gpu_instance_id,
                         m.processes.size());
    for (const auto& e : gpu.events)
      out += fmt::format("  event at {}s: type 0x{:x} data {}{}\n", e.at_s, e.type, e.data,
                         e.recovery_action >= 0 ? fmt::format(", recovery action {}", e.recovery_action) : "");
  }
  if (sc.host.signals) describe_host_signals(*sc.host.signals, out);
  for (const auto& f : sc.faults) {
    out += fmt::format("fault: {} on {} from {}s", shown(f.function), f.gpu < 0 ? std::string("every GPU") : fmt::format("GPU {}", f.gpu), f.from_s);
    if (f.until_s < 1e300) out += fmt::format(" until {}s", f.until_s);
    if (f.error) out += fmt::format(": returns {} ({})", f.error, nvml_error_text(f.error));
    if (f.delay_ms > 0) out += fmt::format(": takes {} ms", f.delay_ms);
    if (f.hang_s > 0) out += fmt::format(": hangs {} s", f.hang_s);
    out += "\n";
  }
  return out;
}

}  // namespace gpuwatch::sim
