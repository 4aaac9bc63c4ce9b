// The per-GPU checks: one check per topic, naming the GPUs concerned.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>

#include "doctor/checks.hpp"

namespace gpuwatch::doctor {

namespace {

// The GPUs that answered, for the topic checks (a GPU that did not is gpu.responding's).
std::vector<const GpuFacts*> answering(const NvmlFacts& nvml) {
  std::vector<const GpuFacts*> out;
  for (const auto& g : nvml.gpus)
    if (g.answered && !g.lost) out.push_back(&g);
  return out;
}

// A topic check's start: Skipped when NVML has no GPU to ask.
bool skip_without_gpus(const NvmlFacts& nvml, Check& c) {
  if (!nvml.loaded) {
    c.verdict = Verdict::Skipped;
    c.evidence = "NVML is unavailable (see nvml.library).";
    return true;
  }
  if (answering(nvml).empty()) {
    c.verdict = Verdict::Skipped;
    c.evidence = "No GPU answered.";
    return true;
  }
  return false;
}

std::vector<unsigned> gpus_where(const NvmlFacts& nvml, const std::function<bool(const GpuFacts&)>& test) {
  std::vector<unsigned> out;
  for (const GpuFacts* g : answering(nvml))
    if (test(*g)) out.push_back(g->index);
  return out;
}

std::string on_gpus(const std::vector<unsigned>& gpus) { return (gpus.size() == 1 ? "GPU " : "GPUs ") + gpu_list(gpus); }

}  // namespace

std::string gpu_list(const std::vector<unsigned>& gpus) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < gpus.size();) {
    std::size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    parts.push_back(j == i ? fmt::format("{}", gpus[i]) : fmt::format("{}-{}", gpus[i], gpus[j]));
    i = j + 1;
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

Check check_gpus_respond(const NvmlFacts& nvml, std::chrono::milliseconds deadline) {
  Check c{"gpu.responding", "Every GPU answers NVML", Verdict::Ok, "", "", {}};
  if (!nvml.loaded) {
    c.verdict = Verdict::Skipped;
    c.evidence = "NVML is unavailable (see nvml.library).";
    return c;
  }
  if (nvml.gpus.empty()) {
    c.verdict = Verdict::Problem;
    c.evidence = "NVML works but reports no GPU.";
    c.fix = "Check that the GPUs are seen on the bus (lspci | grep -i nvidia) and the kernel log (sudo dmesg | grep -i nvrm).";
    return c;
  }
  std::vector<unsigned> hung, lost;
  for (const auto& g : nvml.gpus) {
    if (!g.answered) hung.push_back(g.index);
    else if (g.lost) lost.push_back(g.index);
  }
  std::vector<std::string> parts;
  if (!hung.empty())
    parts.push_back(fmt::format("{} did not answer within {} ms (a hung GPU or driver)", on_gpus(hung), deadline.count()));
  if (!lost.empty())
    parts.push_back(fmt::format("{} cannot be reached: {} (fell off the bus?)", on_gpus(lost), *nvml.gpus[lost.front()].lost));
  if (parts.empty()) {
    c.evidence = fmt::format("All {} GPU(s) answered.", nvml.gpus.size());
    return c;
  }
  c.verdict = Verdict::Problem;
  c.gpus = hung;
  c.gpus.insert(c.gpus.end(), lost.begin(), lost.end());
  c.evidence = fmt::format("{}.", fmt::join(parts, "; "));
  c.fix = "See the kernel log for its Xid (node.xids; sudo dmesg | grep -i xid). Drain the GPU, then reset it "
          "(sudo nvidia-smi -r -i N) or reboot; a GPU that fell off the bus needs a reboot and, if it recurs, service.";
  return c;
}

Check check_persistence(const NvmlFacts& nvml) {
  Check c{"gpu.persistence_mode", "Persistence mode", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  c.gpus = gpus_where(nvml, [](const GpuFacts& g) { return g.persistence == false; });
  if (c.gpus.empty()) {
    const bool known = !gpus_where(nvml, [](const GpuFacts& g) { return g.persistence.has_value(); }).empty();
    c.evidence = known ? "On." : "Not reported by the driver.";
    if (!known) c.verdict = Verdict::Skipped;
    return c;
  }
  c.verdict = Verdict::Warning;
  c.evidence = fmt::format("Off on {}: the driver tears the GPUs down when the last client exits, so every first "
                           "call pays the start-up again (NVML's first call here took {} ms).",
                           on_gpus(c.gpus), nvml.init_time.count());
  c.fix = "Run the persistence daemon: sudo systemctl enable --now nvidia-persistenced (or sudo nvidia-smi -pm 1).";
  return c;
}

Check check_mig(const NvmlFacts& nvml) {
  Check c{"gpu.mig_mode", "MIG mode", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  auto pending = gpus_where(nvml, [](const GpuFacts& g) { return g.mig_current && g.mig_pending && *g.mig_current != *g.mig_pending; });
  auto on = gpus_where(nvml, [](const GpuFacts& g) { return g.mig_current == true; });
  if (!pending.empty()) {
    c.verdict = Verdict::Warning;
    c.gpus = pending;
    c.evidence = fmt::format("A MIG mode change is pending on {}: it takes effect at the next GPU reset.", on_gpus(pending));
    c.fix = "Stop what runs on it, then sudo nvidia-smi -r -i N (or reboot).";
    return c;
  }
  if (on.empty()) {
    c.evidence = "MIG is off (or not supported).";
    return c;
  }
  c.gpus = on;
  c.evidence = fmt::format("MIG is on on {}: whole-GPU fields (utilization, row remaps, processes) are N/A there, "
                           "because NVML answers per MIG instance.",
                           on_gpus(on));
  c.fix = "Nothing to fix: read the instances (gpuwatch status lists them; nvidia-smi mig -lgi). To turn MIG off: "
          "sudo nvidia-smi -i N -mig 0, then reset the GPU.";
  return c;
}

Check check_ecc(const NvmlFacts& nvml) {
  Check c{"gpu.ecc", "ECC, retired pages, row remaps", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  auto failed = gpus_where(nvml, [](const GpuFacts& g) { return g.remap_failure == true; });
  auto pending = gpus_where(nvml, [](const GpuFacts& g) { return g.remap_pending == true || g.retired_pages_pending == true; });
  auto mode_change = gpus_where(nvml, [](const GpuFacts& g) { return g.ecc_current && g.ecc_pending && *g.ecc_current != *g.ecc_pending; });
  auto off = gpus_where(nvml, [](const GpuFacts& g) { return g.ecc_current == false; });
  if (!failed.empty()) {
    c.verdict = Verdict::Problem;
    c.gpus = failed;
    c.evidence = fmt::format("Row remapping failed on {}: the memory has no spare rows left.", on_gpus(failed));
    c.fix = "Drain the GPU and have it serviced (RMA): it will keep raising uncorrectable errors.";
    return c;
  }
  if (!pending.empty()) {
    c.verdict = Verdict::Problem;
    c.gpus = pending;
    c.evidence = fmt::format("A row remap or page retirement is pending on {}: the bad memory stays in use until "
                             "the GPU is reset.",
                             on_gpus(pending));
    c.fix = "Drain the GPU, then reset it (sudo nvidia-smi -r -i N) or reboot the node.";
    return c;
  }
  if (!mode_change.empty()) {
    c.verdict = Verdict::Warning;
    c.gpus = mode_change;
    c.evidence = fmt::format("An ECC mode change is pending on {}: it takes effect at the next reset.", on_gpus(mode_change));
    c.fix = "Reset the GPU (sudo nvidia-smi -r -i N) or reboot.";
    return c;
  }
  c.evidence = off.empty() ? "No pending remap or page retirement; ECC on where supported."
                           : fmt::format("No pending remap or page retirement; ECC is off on {}.", on_gpus(off));
  return c;
}

Check check_pcie_link(const NvmlFacts& nvml) {
  Check c{"gpu.pcie_link", "PCIe link at its maximum", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  std::vector<std::string> parts;
  for (const GpuFacts* g : answering(nvml)) {
    const bool narrow = g->pcie_width && g->pcie_width_max && *g->pcie_width < *g->pcie_width_max;
    // The link trains down at idle: a lower generation counts only under load.
    const bool busy = g->utilization_ratio.value_or(0) >= 0.2;
    const bool slow = busy && g->pcie_gen && g->pcie_gen_max && *g->pcie_gen < *g->pcie_gen_max;
    if (!narrow && !slow) continue;
    c.gpus.push_back(g->index);
    parts.push_back(fmt::format("GPU {} runs Gen{} x{} of Gen{} x{}", g->index, g->pcie_gen.value_or(0),
                                g->pcie_width.value_or(0), g->pcie_gen_max.value_or(0), g->pcie_width_max.value_or(0)));
  }
  if (parts.empty()) {
    c.evidence = "Every link at its maximum width (and generation under load).";
    return c;
  }
  c.verdict = Verdict::Warning;
  c.evidence = fmt::format("Degraded link: {}.", fmt::join(parts, "; "));
  c.fix = "Reseat the GPU (and its riser), try another slot, check the BIOS lane settings; confirm under load with "
          "nvidia-smi -q -d PCI.";
  return c;
}

Check check_power_limit(const NvmlFacts& nvml) {
  Check c{"gpu.power_limit", "Power limit at its default", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  std::vector<std::string> parts;
  for (const GpuFacts* g : answering(nvml)) {
    if (!g->power_limit_w || !g->power_default_w || *g->power_limit_w >= *g->power_default_w - 1) continue;
    c.gpus.push_back(g->index);
    parts.push_back(fmt::format("GPU {} {:.0f} W of {:.0f} W", g->index, *g->power_limit_w, *g->power_default_w));
  }
  if (parts.empty()) {
    c.evidence = "At the default (or not reported).";
    return c;
  }
  c.verdict = Verdict::Warning;
  c.evidence = fmt::format("Power limit below the default: {}.", fmt::join(parts, "; "));
  c.fix = "If nobody meant it: sudo nvidia-smi -i N -pl DEFAULT_WATTS (nvidia-smi -q -d POWER shows the default).";
  return c;
}

Check check_clocks(const NvmlFacts& nvml) {
  Check c{"gpu.clocks", "Application clocks at their default", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  std::vector<std::string> parts;
  for (const GpuFacts* g : answering(nvml)) {
    if (!g->app_clock_mhz || !g->default_app_clock_mhz || *g->app_clock_mhz == *g->default_app_clock_mhz) continue;
    c.gpus.push_back(g->index);
    parts.push_back(fmt::format("GPU {} {} MHz (default {} MHz)", g->index, *g->app_clock_mhz, *g->default_app_clock_mhz));
  }
  if (parts.empty()) {
    c.evidence = "At the default (or not reported).";
    return c;
  }
  c.verdict = Verdict::Warning;
  c.evidence = fmt::format("Application clocks changed: {}.", fmt::join(parts, "; "));
  c.fix = "Reset them: sudo nvidia-smi -i N -rac (and locked clocks: sudo nvidia-smi -i N -rgc).";
  return c;
}

Check check_compute_mode(const NvmlFacts& nvml) {
  Check c{"gpu.compute_mode", "Compute mode", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  std::vector<std::string> parts;
  for (const GpuFacts* g : answering(nvml)) {
    if (!g->compute_mode || *g->compute_mode == 0) continue;
    c.gpus.push_back(g->index);
    const char* what = *g->compute_mode == 2 ? "prohibited (no process may use it)" : "exclusive (one process at a time)";
    parts.push_back(fmt::format("GPU {} {}", g->index, what));
  }
  if (parts.empty()) {
    c.evidence = "Default (shared) where reported.";
    return c;
  }
  c.verdict = Verdict::Warning;
  c.evidence = fmt::format("{}.", fmt::join(parts, "; "));
  c.fix = "If nobody meant it: sudo nvidia-smi -i N -c DEFAULT.";
  return c;
}

Check check_fabric(const NvmlFacts& nvml) {
  Check c{"gpu.fabric", "NVSwitch fabric manager", Verdict::Ok, "", "", {}};
  if (skip_without_gpus(nvml, c)) return c;
  auto fabric = gpus_where(nvml, [](const GpuFacts& g) { return g.fabric_state.value_or(0) != 0; });
  if (fabric.empty()) {
    c.evidence = "No NVSwitch fabric (not an NVSwitch system).";
    return c;
  }
  auto not_ready = gpus_where(nvml, [](const GpuFacts& g) {
    return g.fabric_state.value_or(0) != 0 && (*g.fabric_state != 3 || g.fabric_status.value_or(0) != 0);
  });
  if (not_ready.empty()) {
    c.evidence = fmt::format("{} registered with the fabric.", on_gpus(fabric));
    return c;
  }
  c.verdict = Verdict::Problem;
  c.gpus = not_ready;
  c.evidence = fmt::format("{} not registered with the NVSwitch fabric: CUDA jobs fail to start there.", on_gpus(not_ready));
  c.fix = fmt::format("Check the fabric manager: systemctl status nvidia-fabricmanager (its version must be the "
                      "driver's, {}); sudo systemctl restart nvidia-fabricmanager.",
                      nvml.driver_version.value_or("see nvidia-smi"));
  return c;
}

}  // namespace gpuwatch::doctor
