#pragma once
// The kubelet's pod-resources gRPC API, v1 List, over its unix socket
// (/var/lib/kubelet/pod-resources/kubelet.sock). Debian's gRPC and protobuf; the messages are
// generated at build time from proto/pod_resources_v1.proto. gRPC lives in the gpuwatch-kubelet
// module (kubelet_module/), loaded on the first call; nothing outside it sees a gRPC type.
#include <chrono>
#include <string>

#include "attribution/pod_resources.hpp"
#include "core/result.hpp"

namespace gpuwatch::attribution {

inline constexpr const char* kDefaultPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";

// One List call, bounded by TIMEOUT (connecting included). Error: the socket is missing, the
// kubelet did not answer in time, or it answered with a gRPC error; the message says which.
core::Result<PodResourceList> list_pod_resources(const std::string& socket_path, std::chrono::milliseconds timeout);

}  // namespace gpuwatch::attribution
