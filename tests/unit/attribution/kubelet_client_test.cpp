// The pod-resources client (through the gpuwatch-kubelet module) against a fake kubelet: the
// tests' fake_kubelet (tests/e2e/fake_kubelet), a gRPC server built from the same proto, serving
// List on a unix socket in a temp dir. Covers answering, slow, down and coming back. It runs as a
// child process: the module brings its own copy of the generated messages, and protobuf refuses
// the same .proto registered twice in one process.
#include "attribution/kubelet_client.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

extern char** environ;

namespace gpuwatch::test_paths {
const char* binary_dir();  // the build folder (unit/test_paths.cpp)
}  // namespace gpuwatch::test_paths

namespace gpuwatch::attribution {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class KubeletClient : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuwatch-kubelet-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    socket_ = (dir_ / "kubelet.sock").string();
    pods_ = (dir_ / "pods.json").string();
    // One pod with a GPU container, and a pod without devices (no entries for it).
    std::ofstream(pods_) << R"([{"name": "trainer-0", "namespace": "ml", "containers": [
        {"name": "pytorch", "resource": "nvidia.com/gpu", "devices": ["GPU-aaa", "GPU-bbb"]}]},
      {"name": "web", "namespace": "default", "containers": []}])";
  }
  void TearDown() override {
    stop();
    fs::remove_all(dir_);
  }
  // Starts the fake kubelet, answering after DELAY_MS; returns once its socket is there.
  void serve(int delay_ms = 0) {
    const std::string program = fs::path(test_paths::binary_dir()) / "tests" / "fake_kubelet";
    const std::string delay = std::to_string(delay_ms);
    std::vector<char*> argv{const_cast<char*>(program.c_str()), socket_.data(), pods_.data(),
                            const_cast<char*>(delay.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&child_, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(rc, 0) << "cannot start " << program;
    for (int i = 0; i < 500 && !fs::exists(socket_); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(fs::exists(socket_)) << program << " did not listen on " << socket_ << " in 5 s";
  }
  void stop() {
    if (child_ <= 0) return;
    kill(child_, SIGTERM);
    int status = 0;
    waitpid(child_, &status, 0);
    child_ = -1;
    fs::remove(socket_);
  }
  fs::path dir_;
  std::string socket_, pods_;
  pid_t child_ = -1;
};

TEST_F(KubeletClient, ListsPodsWithDevices) {
  serve();
  auto list = list_pod_resources(socket_, 2000ms);
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front(), (PodDevices{"trainer-0", "ml", "pytorch", "nvidia.com/gpu", {"GPU-aaa", "GPU-bbb"}}));
}

TEST_F(KubeletClient, SlowKubeletTimesOut) {
  serve(1500);
  auto start = std::chrono::steady_clock::now();
  auto list = list_pod_resources(socket_, 200ms);
  ASSERT_FALSE(list);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1200ms);
  EXPECT_NE(list.error().message.find(socket_), std::string::npos);
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
