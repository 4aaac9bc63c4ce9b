#pragma once
// The entry point of the gpuwatch-kubelet module (pod_resources_grpc.cpp), as the loader
// (attribution/kubelet_client.cpp) and the module both see it. Both sides are built together,
// with the same compiler, so C++ types may cross; the module's version is checked on load.
#include <string>

#include "attribution/pod_resources.hpp"
#include "core/optional_module.hpp"
#include "core/result.hpp"

namespace gpuwatch::attribution {

inline constexpr const char* kKubeletModule = "gpuwatch-kubelet.so";
inline constexpr const char* kKubeletListSymbol = "gpuwatch_kubelet_list_pod_resources";
using KubeletListFn = void(const std::string& socket_path, long timeout_ms, core::Result<PodResourceList>& out);

}  // namespace gpuwatch::attribution

GPUWATCH_MODULE_EXPORT gpuwatch::attribution::KubeletListFn gpuwatch_kubelet_list_pod_resources;
