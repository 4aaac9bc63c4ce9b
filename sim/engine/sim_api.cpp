// The simulator API the CLI uses (sim_api.hpp).
#include "sim/engine/sim_api.hpp"

#include <fstream>
#include <sstream>
#include <fmt/format.h>

#include "core/bounded_read.hpp"
#include "sim/engine/capture_import.hpp"
#include "sim/engine/host_tree.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/scenario_describe.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {

std::vector<ScenarioSummary> list_builtin_scenarios() {
  std::vector<ScenarioSummary> out;
  for (const auto& name : builtin_scenario_names()) {
    auto sc = load_scenario(name);
    out.push_back({name, sc ? sc->description : "(invalid: " + sc.error().message + ")"});
  }
  return out;
}

core::Result<void> validate_scenario(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return {};
}

core::Result<void> write_simulated_host(std::string_view name_or_path, const std::string& root) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return write_host_tree(*sc, root);
}

core::Result<std::string> describe_scenario(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return describe(*sc);
}

core::Result<std::vector<StandinSpec>> standin_processes(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  std::vector<StandinSpec> out;
  for (std::size_t g = 0; g < sc->gpus.size(); ++g) {
    const auto& gpu = sc->gpus[g];
    int index = 0;
    auto add = [&](const Process& p) {
      if (!p.pid && p.pid_env.empty() && p.pid_file.empty()) {
        StandinSpec spec;
        spec.gpu = static_cast<int>(g);
        spec.process = index;
        spec.user = p.user;
        std::istringstream words(p.command);
        std::string w;
        while (words >> w) spec.argv.push_back(w);
        if (spec.argv.empty()) spec.argv.push_back("sim-process");
        out.push_back(std::move(spec));
      }
      ++index;
    };
    for (const auto& p : gpu.processes) add(p);
    for (const auto& inst : gpu.mig)
      for (const auto& p : inst.processes) add(p);
  }
  return out;
}

std::string standin_pid_env(const std::vector<StandinSpec>& specs, const std::vector<int>& pids) {
  std::string out;
  for (std::size_t i = 0; i < specs.size() && i < pids.size(); ++i) {
    if (pids[i] <= 0) continue;
    out += fmt::format("{}{}:{}={}", out.empty() ? "" : ",", specs[i].gpu, specs[i].process, pids[i]);
  }
  return out;
}

core::Result<std::string> import_captures(const std::vector<std::string>& paths, bool keep_time) {
  std::vector<CaptureFile> files;
  for (const auto& p : paths) {
    auto text = core::read_regular_file(p, "capture");  // regular files, 64 MiB at most (issue 16)
    if (!text) return text.error();
    files.push_back({p, std::move(*text)});
  }
  return import_capture_files(files, CaptureImportOptions{keep_time});
}

core::Result<bool> needs_legacy_driver(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return sc->driver.legacy_symbols;
}

core::Result<ScenarioVendors> scenario_vendors(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return ScenarioVendors{!gpus_of_vendor(*sc, core::Vendor::Nvidia).empty(), !gpus_of_vendor(*sc, core::Vendor::Amd).empty(),
                         !gpus_of_vendor(*sc, core::Vendor::Intel).empty()};
}

core::Result<bool> scenario_has_host_signals(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return sc->host.signals.has_value();
}

core::Result<std::optional<std::int64_t>> scenario_start_ms(std::string_view name_or_path) {
  auto sc = load_scenario(name_or_path);
  if (!sc) return sc.error();
  return sc->start_ms;
}

}  // namespace gpuwatch::sim
