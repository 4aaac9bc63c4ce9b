#include "attribution/container_names.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

namespace gpuwatch::attribution {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A one-connection fake Engine API on a unix socket in a temp dir: answers REPLY after DELAY.
class FakeEngine {
 public:
  FakeEngine(std::string reply, std::chrono::milliseconds delay) {
    path_ = (fs::temp_directory_path() / ("gpuwatch-docker-" + std::to_string(getpid()) + ".sock")).string();
    fs::remove(path_);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path_.c_str());
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    thread_ = std::thread([this, reply, delay] {
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      char buffer[1024];
      ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (n > 0) request_.assign(buffer, static_cast<std::size_t>(n));
      std::this_thread::sleep_for(delay);
      (void)!::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      ::close(client);
    });
  }
  ~FakeEngine() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
    fs::remove(path_);
  }
  const std::string& path() const { return path_; }
  const std::string& request() const { return request_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::string request_;
  std::thread thread_;
};

TEST(ContainerNames, NameFromInspectJson) {
  EXPECT_EQ(*name_of_inspect_json(R"({"Id":"abc","Name":"/pytorch-train"})"), "pytorch-train");
  EXPECT_FALSE(name_of_inspect_json(R"({"Id":"abc"})"));
  EXPECT_FALSE(name_of_inspect_json("not json"));
}

TEST(ContainerNames, AsksTheEngineOverItsSocket) {
  FakeEngine engine("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"Name\":\"/trainer\"}", 0ms);
  auto name = container_name(engine.path(), "3f4e8c2b9a1d", 2000ms);
  ASSERT_TRUE(name) << name.error().message;
  EXPECT_EQ(*name, "trainer");
  EXPECT_NE(engine.request().find("GET /containers/3f4e8c2b9a1d/json "), std::string::npos);
}

TEST(ContainerNames, NotFoundIsAnError) {
  FakeEngine engine("HTTP/1.0 404 Not Found\r\n\r\n{\"message\":\"No such container\"}", 0ms);
  auto name = container_name(engine.path(), "3f4e8c2b9a1d", 2000ms);
  ASSERT_FALSE(name);
  EXPECT_NE(name.error().message.find("404"), std::string::npos);
}

TEST(ContainerNames, SlowEngineTimesOut) {
  FakeEngine engine("HTTP/1.0 200 OK\r\n\r\n{\"Name\":\"/late\"}", 1500ms);
  auto start = std::chrono::steady_clock::now();
  auto name = container_name(engine.path(), "3f4e8c2b9a1d", 200ms);
  EXPECT_FALSE(name);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1000ms);
}

TEST(ContainerNames, MissingSocketAndBadIds) {
  EXPECT_FALSE(container_name("/nonexistent/docker.sock", "abc", 100ms));
  EXPECT_FALSE(container_name("/nonexistent/docker.sock", "../../etc", 100ms));
}

}  // namespace
}  // namespace gpuwatch::attribution
