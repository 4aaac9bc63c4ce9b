#include "sim/engine/scenario_loader.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <fmt/format.h>

#include "core/bounded_read.hpp"
#include "core/embedded_file.hpp"

namespace gpuwatch::sim {

const std::vector<core::EmbeddedFile>& builtin_scenario_files();

namespace {
constexpr std::pair<PhaseKind, const char*> kPhaseNames[] = {
    {PhaseKind::Idle, "idle"}, {PhaseKind::Training, "training"},
    {PhaseKind::DataloaderStarvation, "dataloader_starvation"}, {PhaseKind::SmallKernels, "small_kernels"},
    {PhaseKind::MemoryBound, "memory_bound"}, {PhaseKind::MemoryLeak, "memory_leak"},
    {PhaseKind::Fragmentation, "fragmentation"}, {PhaseKind::Hung, "hung"},
    {PhaseKind::ThermalRunaway, "thermal_runaway"}, {PhaseKind::PowerCapping, "power_capping"},
    {PhaseKind::Replay, "replay"}, {PhaseKind::GpuLost, "gpu_lost"}, {PhaseKind::EccErrors, "ecc_errors"},
    {PhaseKind::NcclHang, "nccl_hang"}};
}  // namespace

const char* phase_kind_name(PhaseKind kind) {
  for (auto [k, n] : kPhaseNames)
    if (k == kind) return n;
  return "?";
}

std::optional<PhaseKind> phase_kind_from_name(std::string_view name) {
  for (auto [k, n] : kPhaseNames)
    if (name == n) return k;
  return std::nullopt;
}

std::vector<std::string> builtin_scenario_names() {
  std::vector<std::string> out;
  for (const auto& f : builtin_scenario_files()) out.emplace_back(f.name);
  return out;
}

bool is_builtin_scenario(std::string_view name) {
  for (const auto& f : builtin_scenario_files())
    if (f.name == name) return true;
  return false;
}

core::Result<Scenario> load_scenario(std::string_view name_or_path) {
  for (const auto& f : builtin_scenario_files()) {
    if (f.name == name_or_path) {
      auto sc = parse_scenario(f.content, fmt::format("sim/scenarios/{}.yaml", f.name), "");
      if (sc && sc->name.empty()) sc->name = std::string(f.name);
      if (sc) sc->source = fmt::format("builtin:{}", f.name);
      return sc;
    }
  }
  std::string path(name_or_path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::string names;
    for (const auto& n : builtin_scenario_names()) names += (names.empty() ? "" : ", ") + n;
    return core::make_error(fmt::format("scenario '{}': no such file and no such built-in scenario (built-ins: {})", path, names));
  }
  auto text = core::read_regular_file(path, "scenario");  // 64 MiB at most (issue 16)
  if (!text) return text.error();
  auto base = std::filesystem::path(path).parent_path().string();
  auto sc = parse_scenario(*text, path, base);
  if (sc && sc->name.empty()) sc->name = std::filesystem::path(path).stem().string();
  return sc;
}

}  // namespace gpuwatch::sim
