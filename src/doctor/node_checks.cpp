// The node's checks: Xids in the kernel log, temperatures by slot, the monitoring itself.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <numeric>

#include "diagnose/xid_catalog.hpp"
#include "doctor/checks.hpp"

namespace gpuwatch::doctor {

namespace {

// "00000000:3B:00.0" and the kernel's "0000:3b:00" -> "0000:3b:00".
std::string short_pci(const std::string& bus_id) {
  std::string s;
  for (char c : bus_id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto dot = s.rfind('.'); dot != std::string::npos && dot + 3 > s.size()) s.resize(dot);
  if (s.size() == 14) s = s.substr(4);  // 8-digit domain -> 4
  return s;
}

double mean_of(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30));
  if (bytes >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1ull << 20));
  return fmt::format("{} KiB", bytes / 1024);
}

}  // namespace

Check check_kernel_xids(const HostFacts& host, const NvmlFacts& nvml) {
  Check c{"node.xids", "Xids in the kernel log", Verdict::Ok, "", "", {}};
  if (!host.kernel_log_readable) {
    c.verdict = Verdict::Skipped;
    c.evidence = "The kernel log cannot be read here (/dev/kmsg, journalctl -k).";
    c.fix = "Run as root, or add this user to the systemd-journal or adm group, to see Xids.";
    return c;
  }
  if (host.xids.empty()) {
    c.evidence = fmt::format("No NVRM Xid line since boot ({}).", host.kernel_log_source);
    return c;
  }
  std::map<std::pair<unsigned, std::string>, int> counts;  // (xid, pci) -> lines
  for (const auto& x : host.xids) ++counts[{x.xid, x.pci}];
  std::vector<std::string> parts, fixes;
  for (const auto& [key, count] : counts) {
    const auto& [xid, pci] = key;
    const auto info = diagnose::xid_info(xid);
    std::string gpu = "PCI " + pci;
    for (const auto& g : nvml.gpus) {
      if (!g.bus_id.empty() && short_pci(g.bus_id) == short_pci(pci)) {
        gpu = fmt::format("GPU {} ({})", g.index, pci);
        if (std::find(c.gpus.begin(), c.gpus.end(), g.index) == c.gpus.end()) c.gpus.push_back(g.index);
      }
    }
    parts.push_back(fmt::format("{}: Xid {} x{}: {}", gpu, xid, count, info.meaning));
    const Verdict v = info.severity == diagnose::Severity::Critical  ? Verdict::Problem
                      : info.severity == diagnose::Severity::Warning ? Verdict::Warning
                                                                     : Verdict::Ok;
    if (static_cast<int>(v) > static_cast<int>(c.verdict)) c.verdict = v;
    if (v != Verdict::Ok && std::find(fixes.begin(), fixes.end(), std::string(info.action)) == fixes.end())
      fixes.push_back(fmt::format("Xid {}: {}", xid, info.action));
  }
  std::sort(c.gpus.begin(), c.gpus.end());
  c.evidence = fmt::format("Since boot ({}): {}.", host.kernel_log_source, fmt::join(parts, "; "));
  c.fix = fmt::format("{}", fmt::join(fixes, " "));
  return c;
}

Check check_slot_temperatures(const NvmlFacts& nvml) {
  Check c{"node.slot_temperatures", "Temperatures by slot position", Verdict::Ok, "", "", {}};
  std::vector<const GpuFacts*> gpus;
  for (const auto& g : nvml.gpus)
    if (g.answered && !g.lost && g.temperature_c && g.utilization_ratio) gpus.push_back(&g);
  if (gpus.size() < 4) {
    c.verdict = Verdict::Skipped;
    c.evidence = "Needs 4 or more GPUs with temperature and utilization.";
    return c;
  }
  // Slot order: the PCI bus order (NVML's index order when bus ids are missing).
  std::stable_sort(gpus.begin(), gpus.end(), [](const GpuFacts* a, const GpuFacts* b) { return a->bus_id < b->bus_id; });
  const std::size_t end_count = (gpus.size() + 3) / 4;  // a quarter at each end
  std::vector<double> ends, middle, loads;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    (i < end_count || i >= gpus.size() - end_count ? ends : middle).push_back(*gpus[i]->temperature_c);
    loads.push_back(*gpus[i]->utilization_ratio);
  }
  const auto [low, high] = std::minmax_element(loads.begin(), loads.end());
  const bool same_load = *high - *low <= 0.2 && mean_of(loads) >= 0.3;
  const double hotter = mean_of(middle) - mean_of(ends);
  std::vector<std::string> by_slot;
  for (const GpuFacts* g : gpus) by_slot.push_back(fmt::format("{}:{:.0f}", g->index, *g->temperature_c));
  const std::string order = fmt::format("GPU:degC in slot order {}", fmt::join(by_slot, " "));
  if (!same_load) {
    c.evidence = fmt::format("Not under one common load, nothing to compare ({}).", order);
    return c;
  }
  if (hotter < 8) {
    c.evidence = fmt::format("Middle and end GPUs within {:.0f} degC under the same load ({}).", std::max(0.0, hotter), order);
    return c;
  }
  c.verdict = Verdict::Warning;
  for (std::size_t i = end_count; i < gpus.size() - end_count; ++i) c.gpus.push_back(gpus[i]->index);
  std::sort(c.gpus.begin(), c.gpus.end());
  c.evidence = fmt::format("The middle GPUs run {:.0f} degC hotter than the ends under the same load ({:.0f} % "
                           "busy): they heat each other ({}).",
                           hotter, mean_of(loads) * 100, order);
  c.fix = "A cooling problem, not a GPU fault: check the airflow (fan speeds, blanking panels, inlet temperature, "
          "cable obstruction); PCIe cards packed side by side need spacing or blower coolers.";
  return c;
}

Check check_monitoring(const MonitoringFacts& m) {
  Check c{"node.monitoring", "gpuwatch's own monitoring", Verdict::Ok, "", "", {}};
  std::vector<std::string> parts;
  parts.push_back(m.running.empty() ? "no gpuwatch serve or record is running (nothing keeps history)"
                                    : fmt::format("running: {}", fmt::join(m.running, ", ")));
  if (!m.database.empty()) {
    parts.push_back(m.database_bytes ? fmt::format("history {} ({})", m.database, human_bytes(*m.database_bytes))
                                     : fmt::format("no history yet at {}", m.database));
  }
  if (m.free_bytes && m.total_bytes && *m.total_bytes > 0) {
    parts.push_back(fmt::format("{} free on its disk", human_bytes(*m.free_bytes)));
    const double share = static_cast<double>(*m.free_bytes) / static_cast<double>(*m.total_bytes);
    if (*m.free_bytes < (1ull << 30) || share < 0.05) {
      c.verdict = Verdict::Warning;
      c.fix = "Free disk space, or bound the history (gpuwatch record --max-size, --retain-raw).";
    }
  }
  if (m.running.empty() && c.fix.empty()) c.fix = "To keep history: gpuwatch record (or serve), or the systemd unit.";
  c.evidence = fmt::format("{}.", fmt::join(parts, "; "));
  // Capitalise the sentence.
  if (!c.evidence.empty()) c.evidence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(c.evidence[0])));
  return c;
}

}  // namespace gpuwatch::doctor
