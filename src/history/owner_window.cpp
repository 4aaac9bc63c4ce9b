#include "history/owner_window.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "core/sink_text.hpp"
#include "core/local_time.hpp"

namespace gpuwatch::history {

core::Result<store::OwnerWindow> find_owner_window(const store::HistoryDatabase& db, const store::OwnerFilter& filter,
                                                   const std::string& path) {
  auto spans = store::read_owner_spans(db, filter);
  if (!spans) return spans.error();
  auto window = store::owner_window(filter, *spans);
  if (!window) {
    return core::make_error(fmt::format(
        "no process of {} in {} (a recorder keeps the owner of each GPU process when it can find it: the Slurm job "
        "from the cgroup, SLURM_JOB_ID or --hpc-job-mapping-dir; the pod from the kubelet's pod-resources socket)",
        store::describe(filter), path));
  }
  if (filter.pod_name && !filter.pod_namespace && window->namespaces.size() > 1) {
    return core::make_error(fmt::format("pod {} is in several namespaces ({}): give NAMESPACE/{}", *filter.pod_name,
                                        fmt::join(window->namespaces, ", "), *filter.pod_name));
  }
  return *window;
}

std::string owner_window_line(const store::OwnerWindow& window) {
  std::vector<unsigned> gpus;
  for (const auto& g : window.gpus) gpus.push_back(g.index);
  return fmt::format("{}: GPU{} {} ({} process{}) from {} to {}", core::terminal_text(window.title), gpus.size() == 1 ? "" : "s",
                     fmt::join(gpus, ","), window.processes.size(), window.processes.size() == 1 ? "" : "es",
                     core::format_local_time(window.first_ms), core::format_local_time(window.last_ms));
}

void keep_findings_of(std::vector<diagnose::Finding>& findings, const store::OwnerWindow& owner) {
  std::erase_if(findings, [&](const diagnose::Finding& f) {
    for (std::size_t i = 0; i < f.gpus.size(); ++i) {
      std::optional<std::string> uuid;
      if (i < f.uuids.size() && !f.uuids[i].empty()) uuid = f.uuids[i];
      if (owner.holds(uuid, f.gpus[i])) return false;
    }
    return true;
  });
}

}  // namespace gpuwatch::history
