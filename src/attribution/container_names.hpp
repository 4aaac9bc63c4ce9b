#pragma once
// A container's name from its runtime's API: Docker's (and podman's Docker-compatible) Engine
// API over a unix socket, GET /containers/<id>/json, with a short timeout. A plain HTTP/1.0
// request on a socket: no HTTP library needed for one GET.
#include <chrono>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuwatch::attribution {

inline constexpr const char* kDefaultDockerSocket = "/var/run/docker.sock";
inline constexpr const char* kDefaultPodmanSocket = "/run/podman/podman.sock";

// The "Name" of the container ID, without Docker's leading '/'. Error: no socket, no answer
// within TIMEOUT, an HTTP status other than 200 (404: no such container), or a reply without
// a name.
core::Result<std::string> container_name(const std::string& socket_path, const std::string& container_id,
                                         std::chrono::milliseconds timeout);

// The name in an Engine API /containers/<id>/json body. Pure.
core::Result<std::string> name_of_inspect_json(std::string_view body);

}  // namespace gpuwatch::attribution
