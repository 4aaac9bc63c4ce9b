#include "attribution/kubelet_client.hpp"

#include <grpcpp/grpcpp.h>

#include <filesystem>
#include <system_error>

#include "pod_resources_v1.grpc.pb.h"

namespace gpuwatch::attribution {

core::Result<PodResourceList> list_pod_resources(const std::string& socket_path, std::chrono::milliseconds timeout) {
  std::error_code ec;
  if (!std::filesystem::exists(socket_path, ec)) {
    return core::make_error("kubelet pod-resources socket " + socket_path + " does not exist");
  }
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

}  // namespace gpuwatch::attribution
