#pragma once
// The flags of `history` and `report` per Slurm job or Kubernetes pod (issue 15): --slurm-job ID
// and --pod NAME|NAMESPACE/NAME. Like `report --job` for the jobs of `gpuwatch run`, the owner
// sets the range (its first to its last sample) and the GPUs (those its processes ran on).
// Wiring only: the queries are in store/process_owners.hpp, the lookup in history/owner_window.hpp,
// the report's owner block in report/owner_block.hpp.
#include <optional>
#include <string>

#include "core/result.hpp"
#include "store/process_owners.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpuwatch::cli {

struct OwnerArgs {
  std::string slurm_job, pod;
  CLI::Option* slurm_job_option = nullptr;
  CLI::Option* pod_option = nullptr;
};

// WHAT: what the owner narrows ("the samples", "the report").
void add_owner_options(CLI::App& command, OwnerArgs& args, const std::string& what);

// nullopt when neither option is given; an error when both are, or when the value is malformed.
core::Result<std::optional<store::OwnerFilter>> owner_filter(const OwnerArgs& args);

}  // namespace gpuwatch::cli
