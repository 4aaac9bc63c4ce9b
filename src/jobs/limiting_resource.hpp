#pragma once
// Which resource limited a job, or the GPUs of a report's window (issue 25): read from the
// diagnosis's findings and their causes, never guessed from raw numbers. `run`'s summary and
// `report` print it as one line. Pure.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"

namespace gpuwatch::jobs {

struct LimitingResource {
  std::string resource;  // "host CPU", "storage I/O", "network", "host memory", "GPU kernels", "input pipeline"
  std::string why;       // a few words: "the data loading is CPU-bound"
  const diagnose::Finding* finding = nullptr;  // the finding it comes from (in the list given)
};

// The finding that names a limiting resource (input_starved and its cause, comm_bound,
// host_memory_pressure, low_utilization with the host idle too), the most severe first, then the
// largest impact; nullopt when none does.
std::optional<LimitingResource> limiting_resource(const std::vector<diagnose::Finding>& findings);

// {"resource", "why", "kind", "cause" (null: none), "gpus", "summary"}, or null: `run --summary-json`'s
// and `report --format json`'s limited_by.
nlohmann::json limiting_resource_json(const std::vector<diagnose::Finding>& findings);

// "host CPU (the data loading is CPU-bound; input_starved on GPU 0): <summary>", or "" (callers
// put "limited by: " before it).
std::string limiting_resource_text(const std::vector<diagnose::Finding>& findings);

}  // namespace gpuwatch::jobs
