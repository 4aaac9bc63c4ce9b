#include "attribution/kubelet_client.hpp"

#include <filesystem>
#include <system_error>

#include "attribution/kubelet_module/kubelet_module.hpp"

namespace gpuwatch::attribution {

core::Result<PodResourceList> list_pod_resources(const std::string& socket_path, std::chrono::milliseconds timeout) {
  std::error_code ec;
  if (!std::filesystem::exists(socket_path, ec)) {
    return core::make_error("kubelet pod-resources socket " + socket_path + " does not exist");
  }
  // gRPC is loaded only now, on a node with a kubelet (src/core/optional_module.hpp).
  auto list = core::module_function<KubeletListFn>(kKubeletModule, kKubeletListSymbol);
  if (!list) return core::make_error("kubelet pod-resources: " + list.error().message);
  core::Result<PodResourceList> out = core::make_error("kubelet pod-resources: no answer from the module");
  list->call(socket_path, static_cast<long>(timeout.count()), out);
  return out;
}

}  // namespace gpuwatch::attribution
