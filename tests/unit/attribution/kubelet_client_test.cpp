// The pod-resources client against a fake kubelet: a gRPC server built from the same proto,
// serving List on a unix socket in a temp dir. Covers answering, slow, down and coming back.
#include "attribution/kubelet_client.hpp"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "pod_resources_v1.grpc.pb.h"

namespace gpuwatch::attribution {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class FakeKubelet final : public v1::PodResourcesLister::Service {
 public:
  std::atomic<int> delay_ms{0};
  std::atomic<int> calls{0};
  grpc::Status List(grpc::ServerContext*, const v1::ListPodResourcesRequest*,
                    v1::ListPodResourcesResponse* response) override {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    auto* pod = response->add_pod_resources();
    pod->set_name("trainer-0");
    pod->set_namespace_("ml");
    auto* container = pod->add_containers();
    container->set_name("pytorch");
    auto* devices = container->add_devices();
    devices->set_resource_name("nvidia.com/gpu");
    devices->add_device_ids("GPU-aaa");
    devices->add_device_ids("GPU-bbb");
    auto* cpu_only = response->add_pod_resources();  // a pod without devices: no entries
    cpu_only->set_name("web");
    cpu_only->set_namespace_("default");
    cpu_only->add_containers()->set_name("nginx");
    return grpc::Status::OK;
  }
};

class KubeletClient : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwatch-kubelet-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    socket_ = (dir_ / "kubelet.sock").string();
  }
  void TearDown() override {
    stop();
    fs::remove_all(dir_);
  }
  void serve() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_, grpc::InsecureServerCredentials());
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_);
  }
  void stop() {
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + 100ms);
    server_.reset();
    fs::remove(socket_);
  }
  fs::path dir_;
  std::string socket_;
  FakeKubelet service_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(KubeletClient, ListsPodsWithDevices) {
  serve();
  auto list = list_pod_resources(socket_, 2000ms);
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front(), (PodDevices{"trainer-0", "ml", "pytorch", "nvidia.com/gpu", {"GPU-aaa", "GPU-bbb"}}));
}

TEST_F(KubeletClient, SlowKubeletTimesOut) {
  serve();
  service_.delay_ms = 1500;
  auto start = std::chrono::steady_clock::now();
  auto list = list_pod_resources(socket_, 200ms);
  ASSERT_FALSE(list);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1200ms);
  EXPECT_NE(list.error().message.find(socket_), std::string::npos);
  service_.delay_ms = 0;
}

TEST_F(KubeletClient, DownThenBackAgain) {
  auto down = list_pod_resources(socket_, 200ms);
  ASSERT_FALSE(down);
  EXPECT_NE(down.error().message.find("does not exist"), std::string::npos);
  serve();
  EXPECT_TRUE(list_pod_resources(socket_, 2000ms));
  stop();
  EXPECT_FALSE(list_pod_resources(socket_, 200ms));
  serve();
  auto back = list_pod_resources(socket_, 2000ms);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->size(), 1u);
}

}  // namespace
}  // namespace gpuwatch::attribution
