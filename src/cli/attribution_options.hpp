#pragma once
// The flags of process attribution (issue 15), shared by `status`, `pmon` and `serve`:
// --no-attribution, --proc-root, --pod-resources-socket, --docker-socket, --podman-socket,
// --hpc-job-mapping-dir. Wiring only; the work is in src/attribution/.
#include <chrono>
#include <string>

#include "attribution/attributor.hpp"

namespace CLI {
class App;
}

namespace gpuwatch::cli {

struct AttributionArgs {
  bool off = false;
  std::string proc_root = "/proc";
  std::string pod_resources_socket;  // empty: the kubelet's default path, when it is there
  std::string docker_socket;         // empty: /var/run/docker.sock, when usable
  std::string podman_socket;         // empty: /run/podman/podman.sock, when usable
  std::string job_mapping_dir;       // empty: none
};

void add_attribution_options(CLI::App& command, AttributionArgs& args);

// The attributor's options: a socket given on the command line is always used (and a failure
// to reach it logged once); a default one only when it exists and we may open it, so that a
// plain machine stays quiet.
attribution::AttributorOptions attributor_options(const AttributionArgs& args, std::chrono::milliseconds api_timeout);

}  // namespace gpuwatch::cli
