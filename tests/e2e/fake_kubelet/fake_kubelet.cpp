// A stand-in kubelet for the end-to-end tests: serves the pod-resources v1 List (generated from
// src/attribution/proto) on a unix socket until SIGTERM/SIGINT.
//   fake_kubelet SOCKET PODS_JSON [DELAY_MS]
// PODS_JSON: [{"name":..., "namespace":..., "containers":[{"name":..., "resource":..., "devices":[...]}]}]
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "pod_resources_v1.grpc.pb.h"

namespace {

class Lister final : public v1::PodResourcesLister::Service {
 public:
  Lister(nlohmann::json pods, int delay_ms) : pods_(std::move(pods)), delay_ms_(delay_ms) {}
  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* response) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    for (const auto& pod : pods_) {
      auto* p = response->add_pod_resources();
      p->set_name(pod.at("name").get<std::string>());
      p->set_namespace_(pod.at("namespace").get<std::string>());
      for (const auto& container : pod.at("containers")) {
        auto* c = p->add_containers();
        c->set_name(container.at("name").get<std::string>());
        auto* d = c->add_devices();
        d->set_resource_name(container.value("resource", "nvidia.com/gpu"));
        for (const auto& id : container.at("devices")) d->add_device_ids(id.get<std::string>());
      }
    }
    return grpc::Status::OK;
  }

 private:
  nlohmann::json pods_;
  int delay_ms_;
};

volatile std::sig_atomic_t stop = 0;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fake_kubelet SOCKET PODS_JSON [DELAY_MS]\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  auto pods = nlohmann::json::parse(in, nullptr, false);
  if (pods.is_discarded() || !pods.is_array()) {
    std::cerr << "fake_kubelet: " << argv[2] << " is not a JSON array of pods\n";
    return 2;
  }
  Lister service(std::move(pods), argc > 3 ? std::atoi(argv[3]) : 0);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(std::string("unix:") + argv[1], grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server) {
    std::cerr << "fake_kubelet: cannot listen on " << argv[1] << "\n";
    return 1;
  }
  std::signal(SIGTERM, [](int) { stop = 1; });
  std::signal(SIGINT, [](int) { stop = 1; });
  std::cout << "ready" << std::endl;
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
  return 0;
}
