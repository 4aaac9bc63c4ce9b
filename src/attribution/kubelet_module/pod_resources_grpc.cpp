// The gpuwatch-kubelet module: the pod-resources v1 List call over gRPC (Debian's gRPC and
// protobuf, which only this module links). Loaded by attribution/kubelet_client.cpp.
#include <grpcpp/grpcpp.h>

#include <exception>

#include "attribution/kubelet_module/kubelet_module.hpp"
#include "pod_resources_v1.grpc.pb.h"

namespace gpuwatch::attribution {
namespace {

core::Result<PodResourceList> list_over_grpc(const std::string& socket_path, std::chrono::milliseconds timeout) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(16 * 1024 * 1024);  // the kubelet's own limit for this API
  auto channel = grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args);
  auto stub = v1::PodResourcesLister::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  v1::ListPodResourcesRequest request;
  v1::ListPodResourcesResponse response;
  grpc::Status status = stub->List(&context, request, &response);
  if (!status.ok()) {
    return core::make_error("kubelet pod-resources List on " + socket_path + ": " + status.error_message() +
                                " (gRPC code " + std::to_string(static_cast<int>(status.error_code())) + ")",
                            static_cast<int>(status.error_code()));
  }
  PodResourceList list;
  for (const auto& pod : response.pod_resources()) {
    for (const auto& container : pod.containers()) {
      for (const auto& devices : container.devices()) {
        PodDevices entry{pod.name(), pod.namespace_(), container.name(), devices.resource_name(), {}};
        entry.device_ids.assign(devices.device_ids().begin(), devices.device_ids().end());
        list.push_back(std::move(entry));
      }
    }
  }
  return list;
}

}  // namespace
}  // namespace gpuwatch::attribution

GPUWATCH_MODULE_EXPORT const char* gpuwatch_module_version() { return GPUWATCH_MODULE_VERSION; }

GPUWATCH_MODULE_EXPORT void gpuwatch_kubelet_list_pod_resources(const std::string& socket_path, long timeout_ms,
                                                                gpuwatch::core::Result<gpuwatch::attribution::PodResourceList>& out) {
  try {
    out = gpuwatch::attribution::list_over_grpc(socket_path, std::chrono::milliseconds(timeout_ms));
  } catch (const std::exception& e) {  // nothing may unwind across the module boundary
    out = gpuwatch::core::make_error(std::string("kubelet pod-resources List: ") + e.what());
  }
}
