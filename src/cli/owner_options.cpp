#include "cli/owner_options.hpp"

#include <CLI/CLI.hpp>

namespace gpuwatch::cli {

void add_owner_options(CLI::App& command, OwnerArgs& args, const std::string& what) {
  const char* group = "Per Slurm job or Kubernetes pod (recorded with process attribution)";
  args.slurm_job_option =
      command.add_option("--slurm-job", args.slurm_job,
                         "Only " + what + " of this Slurm job: its first to its last sample, the GPUs its processes ran on")
          ->type_name("ID")
          ->group(group);
  args.pod_option = command.add_option("--pod", args.pod,
                                       "Only " + what + " of this Kubernetes pod (NAME or NAMESPACE/NAME): as --slurm-job")
                        ->type_name("[NAMESPACE/]NAME")
                        ->group(group);
}

core::Result<std::optional<store::OwnerFilter>> owner_filter(const OwnerArgs& args) {
  const bool job = args.slurm_job_option && args.slurm_job_option->count() > 0;
  const bool pod = args.pod_option && args.pod_option->count() > 0;
  if (job && pod) return core::make_error("--slurm-job and --pod each pick one owner: give one of them");
  if (!job && !pod) return std::optional<store::OwnerFilter>();
  auto filter = job ? store::slurm_job_filter(args.slurm_job) : store::pod_filter(args.pod);
  if (!filter) return filter.error();
  return std::optional<store::OwnerFilter>(*filter);
}

}  // namespace gpuwatch::cli
