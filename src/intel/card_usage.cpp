// The DRM clients of a card (fdinfo): their busy counters turned into utilization against the
// previous scan, and IntelBackend::read_processes (declared in intel_backend.hpp).
#include <algorithm>
#include <cerrno>
#include <string>

#include "intel/intel_backend.hpp"
#include "intel/intel_errors.hpp"
#include "intel/sysfs_file.hpp"

namespace gpuwatch::intel {
namespace {

constexpr double kNsPerSecond = 1e9;

bool on_card(const DrmClient& client, const IntelCard& card) {
  const auto address = parse_pci_address(client.pdev);
  return address && *address == card.address;
}

// Busy share of class C between two readings of one client: i915 ns over the seconds passed,
// xe cycles over the GPU timestamp's cycles. nullopt: not comparable.
std::optional<double> busy_share(const EngineUse& before, const EngineUse& after, double seconds) {
  if (!after.present || !before.present || after.busy < before.busy) return std::nullopt;
  const double busy = static_cast<double>(after.busy - before.busy);
  if (after.total != 0 || before.total != 0) {
    if (after.total <= before.total) return std::nullopt;
    return busy / static_cast<double>(after.total - before.total);
  }
  if (seconds <= 0) return std::nullopt;
  return busy / (seconds * kNsPerSecond);
}

constexpr EngineClass kBusyClasses[] = {EngineClass::Render, EngineClass::Compute};

core::ProcessType type_of(const DrmClient& c) {
  const bool compute = c.engine(EngineClass::Compute).busy > 0;
  const bool render = c.engine(EngineClass::Render).busy > 0;
  if (compute && render) return core::ProcessType::ComputeAndGraphics;
  return render ? core::ProcessType::Graphics : core::ProcessType::Compute;
}

core::ProcessType merged_type(core::ProcessType a, core::ProcessType b) {
  return a == b ? a : core::ProcessType::ComputeAndGraphics;
}

std::string process_name(const std::string& root, std::uint32_t pid) {
  const std::string comm = "/proc/" + std::to_string(pid) + "/comm";
  auto name = read_text_file(under_root(root, comm));
  if (!name.value && root != "/" && !root.empty()) name = read_text_file(comm);  // the simulator's stand-ins are real
  return name.value.value_or("");
}

}  // namespace

std::shared_ptr<const DrmScan> IntelBackend::fold_drm_usage(const Device& dev) const {
  std::uint64_t generation = 0;
  auto scan = drm_scan(&generation);
  ClientUsage& usage = dev.state.usage;
  if (generation == usage.generation) return scan;
  const double at = clock_seconds();
  const double seconds = at - usage.at;
  const bool have_before = usage.generation != 0;
  if (have_before && seconds <= 0) {  // a frozen simulated clock: nothing moved
    usage.generation = generation;
    return scan;
  }
  decltype(usage.clients) clients;
  std::map<std::uint32_t, std::array<double, kEngineClassCount>> per_pid;
  std::array<double, kEngineClassCount> per_class{};
  for (const DrmClient& c : scan->clients) {
    if (!on_card(c, dev.card)) continue;
    const auto key = std::make_tuple(c.pid, c.client_id);
    auto& pid_classes = per_pid[c.pid];
    if (auto before = usage.clients.find(key); before != usage.clients.end()) {
      for (EngineClass k : kBusyClasses) {
        const auto i = static_cast<std::size_t>(k);
        if (auto share = busy_share(before->second.engine(k), c.engine(k), seconds)) {
          per_class[i] += *share;
          pid_classes[i] += *share;
        }
      }
    }
    clients.emplace(key, c);
  }
  usage.process_ratio.clear();
  if (have_before) {
    const auto busiest = [](const std::array<double, kEngineClassCount>& a) {
      double m = 0;
      for (EngineClass k : kBusyClasses) m = std::max(m, a[static_cast<std::size_t>(k)]);
      return std::min(m, 1.0);
    };
    usage.device_ratio = busiest(per_class);
    for (const auto& [pid, classes] : per_pid) usage.process_ratio[pid] = busiest(classes);
  } else {
    usage.device_ratio.reset();
  }
  usage.clients = std::move(clients);
  usage.at = at;
  usage.generation = generation;
  return scan;
}

core::ReadError IntelBackend::read_processes(backend::DeviceHandle handle, unsigned long long* utilization_since_us,
                                             core::DeviceSnapshot& device) const {
  if (simulated_tree_) simulated_tree_->refresh();
  const Device& dev = *static_cast<const Device*>(handle.raw);
  if (utilization_since_us != nullptr) await_baselines();
  device.processes.clear();
  std::lock_guard lock(dev.state.mutex);
  const auto scan = fold_drm_usage(dev);
  if (!scan->complete && scan->clients.empty() && scan->error != EACCES && scan->error != EPERM) {
    device.processes_error = error_from_errno(scan->error);  // no /proc at all
    device.processes_status = status_of(device.processes_error);
    return noted(device.processes_error);
  }
  for (const auto& [key, client] : dev.state.usage.clients) {
    auto it = std::find_if(device.processes.begin(), device.processes.end(),
                           [&](const core::ProcessSample& p) { return p.pid == client.pid; });
    if (it == device.processes.end()) {
      core::ProcessSample p;
      p.pid = client.pid;
      p.type = type_of(client);
      p.used_memory_bytes = client.memory_bytes;
      device.processes.push_back(std::move(p));
      continue;
    }
    it->type = merged_type(it->type, type_of(client));
    if (client.memory_bytes) it->used_memory_bytes = it->used_memory_bytes.value_or(0) + *client.memory_bytes;
  }
  for (auto& p : device.processes) {
    p.name = process_name(root_, p.pid);
    if (utilization_since_us == nullptr) continue;
    if (auto r = dev.state.usage.process_ratio.find(p.pid); r != dev.state.usage.process_ratio.end()) p.sm_ratio = r->second;
  }
  if (utilization_since_us != nullptr) {
    *utilization_since_us = static_cast<unsigned long long>(clock_seconds() * 1e6);
  }
  device.processes_status = core::FieldStatus::Ok;
  device.processes_error = {};
  return {};
}

}  // namespace gpuwatch::intel
