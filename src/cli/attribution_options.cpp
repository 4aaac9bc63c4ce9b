#include "cli/attribution_options.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "attribution/container_names.hpp"
#include "attribution/kubelet_client.hpp"

namespace gpuwatch::cli {
namespace {

std::optional<std::string> socket_or_default(const std::string& given, const char* fallback) {
  if (!given.empty()) return given == "none" ? std::nullopt : std::optional<std::string>(given);
  if (::access(fallback, R_OK | W_OK) == 0) return std::string(fallback);
  return std::nullopt;
}

}  // namespace

void add_attribution_options(CLI::App& command, AttributionArgs& args) {
  const char* group = "Process attribution (containers, pods, Slurm jobs)";
  command.add_flag("--no-attribution", args.off, "Do not look up the container, pod or Slurm job of GPU processes")
      ->group(group);
  command.add_option("--proc-root", args.proc_root, "Where to read the host's /proc for attribution (default /proc)")
      ->group(group);
  command.add_option("--pod-resources-socket", args.pod_resources_socket,
                     "The kubelet's pod-resources socket, for pod names (default " +
                         std::string(attribution::kDefaultPodResourcesSocket) + " when present; 'none': off)")
      ->group(group);
  command.add_option("--docker-socket", args.docker_socket,
                     "Docker's API socket, for container names (default " + std::string(attribution::kDefaultDockerSocket) +
                         " when usable; 'none': off)")
      ->group(group);
  command.add_option("--podman-socket", args.podman_socket,
                     "Podman's API socket, for container names (default " + std::string(attribution::kDefaultPodmanSocket) +
                         " when usable; 'none': off)")
      ->group(group);
  command.add_option("--hpc-job-mapping-dir", args.job_mapping_dir,
                     "Slurm job ids per GPU, one file per GPU index, as dcgm-exporter's --hpc-job-mapping-dir")
      ->group(group);
}

attribution::AttributorOptions attributor_options(const AttributionArgs& args, std::chrono::milliseconds api_timeout) {
  attribution::AttributorOptions options;
  options.proc_root = args.proc_root;
  options.pod_resources_socket = socket_or_default(args.pod_resources_socket, attribution::kDefaultPodResourcesSocket);
  options.docker_socket = socket_or_default(args.docker_socket, attribution::kDefaultDockerSocket);
  options.podman_socket = socket_or_default(args.podman_socket, attribution::kDefaultPodmanSocket);
  if (!args.job_mapping_dir.empty()) options.job_mapping_dir = args.job_mapping_dir;
  options.api_timeout = api_timeout;
  return options;
}

}  // namespace gpuwatch::cli
