#include "jobs/limiting_resource.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/sink_text.hpp"

namespace gpuwatch::jobs {
namespace limiting_resource_detail {  // unity builds: names of this file only

// The resource a finding names, if it names one.
std::optional<LimitingResource> resource_of(const diagnose::Finding& f) {
  if (f.kind == "input_starved") {
    if (f.cause == "cpu_bound") return LimitingResource{"host CPU", "the data loading is CPU-bound", &f};
    if (f.cause == "io_bound") return LimitingResource{"storage I/O", "the data loading waits on the disks", &f};
    return LimitingResource{"input pipeline", "the GPU waits for data; the host does not say why", &f};
  }
  if (f.kind == "comm_bound") {
    return LimitingResource{"network", "the GPUs wait together for synchronisation (gradients over the network/InfiniBand/NVLink)", &f};
  }
  if (f.kind == "host_memory_pressure") return LimitingResource{"host memory", "the host swaps or stalls on memory", &f};
  if (f.kind == "low_utilization") {
    const auto idle = f.evidence.find("host_idle");
    if (idle != f.evidence.end() && idle->second >= 1.0) {
      return LimitingResource{"GPU kernels", "the GPUs are underused while the host is idle too", &f};
    }
  }
  return std::nullopt;
}

}  // namespace limiting_resource_detail

std::optional<LimitingResource> limiting_resource(const std::vector<diagnose::Finding>& findings) {
  std::optional<LimitingResource> best;
  for (const auto& f : findings) {
    auto named = limiting_resource_detail::resource_of(f);
    if (!named) continue;
    if (!best) {
      best = named;
      continue;
    }
    const diagnose::Finding& b = *best->finding;
    const bool worse = f.severity != b.severity ? f.severity > b.severity : f.impact.value_or(0) > b.impact.value_or(0);
    if (worse) best = named;
  }
  return best;
}

nlohmann::json limiting_resource_json(const std::vector<diagnose::Finding>& findings) {
  auto limit = limiting_resource(findings);
  if (!limit) return nullptr;
  const diagnose::Finding& f = *limit->finding;
  return {{"resource", limit->resource}, {"why", limit->why}, {"kind", f.kind},
          {"cause", f.cause.empty() ? nlohmann::json() : nlohmann::json(f.cause)}, {"gpus", f.gpus}, {"summary", f.summary}};
}

std::string limiting_resource_text(const std::vector<diagnose::Finding>& findings) {
  auto limit = limiting_resource(findings);
  if (!limit) return "";
  const diagnose::Finding& f = *limit->finding;
  const std::string where = f.gpus.empty()        ? ""
                            : f.gpus.size() == 1 ? fmt::format(" on GPU {}", f.gpus.front())
                                                 : fmt::format(" on GPUs {}", fmt::join(f.gpus, ","));
  return fmt::format("{} ({}; {}{}): {}", limit->resource, limit->why, core::terminal_text(f.kind), where,
                     core::terminal_text(f.summary.empty() ? f.detail : f.summary));
}

}  // namespace gpuwatch::jobs
