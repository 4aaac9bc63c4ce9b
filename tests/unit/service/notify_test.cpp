#include "service/notify.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>

namespace gpuwatch::service {
namespace {

// A datagram socket standing in for systemd's notify socket.
class FakeServiceManager {
 public:
  explicit FakeServiceManager(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.data(), path.size());
    if (path[0] == '@') address.sun_path[0] = '\0';
    auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
    bound_ = ::bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) == 0;
    timeval timeout{2, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~FakeServiceManager() {
    ::close(fd_);
    if (path_[0] != '@') std::remove(path_.c_str());
  }
  bool bound() const { return bound_; }
  std::string receive() {
    char buffer[256] = {};
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

TEST(ServiceNotify, DoesNothingOutsideANotifyService) {
  EXPECT_FALSE(ServiceNotifier(nullptr).enabled());
  EXPECT_FALSE(ServiceNotifier("").notify("READY=1"));
}

TEST(ServiceNotify, SendsStateToAPathSocket) {
  std::string path = ::testing::TempDir() + "gpuwatch-notify-" + std::to_string(::getpid());
  FakeServiceManager manager(path);
  ASSERT_TRUE(manager.bound());
  ServiceNotifier notifier(path.c_str());
  ASSERT_TRUE(notifier.enabled());
  EXPECT_TRUE(notifier.notify("READY=1\nSTATUS=serving 2 GPUs"));
  EXPECT_EQ(manager.receive(), "READY=1\nSTATUS=serving 2 GPUs");
  EXPECT_TRUE(notifier.notify("STOPPING=1"));
  EXPECT_EQ(manager.receive(), "STOPPING=1");
}

TEST(ServiceNotify, SendsStateToAnAbstractSocket) {
  std::string path = "@gpuwatch-notify-test-" + std::to_string(::getpid());
  FakeServiceManager manager(path);
  ASSERT_TRUE(manager.bound());
  EXPECT_TRUE(ServiceNotifier(path.c_str()).notify("READY=1"));
  EXPECT_EQ(manager.receive(), "READY=1");
}

TEST(ServiceNotify, NoListenerIsAFailedSendNotACrash) {
  std::string path = ::testing::TempDir() + "gpuwatch-notify-nobody-" + std::to_string(::getpid());
  EXPECT_FALSE(ServiceNotifier(path.c_str()).notify("READY=1"));
}

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(ServiceWatchdog, PingsAtHalfOfWatchdogUsec) {
  EXPECT_EQ(watchdog_ping_interval("30000000", nullptr, 42), microseconds(15'000'000));  // WatchdogSec=30s
  EXPECT_EQ(watchdog_ping_interval("1000", "", 42), microseconds(500));  // an empty PID is unset
  EXPECT_EQ(watchdog_ping_interval("1", nullptr, 42), microseconds(1));  // never 0
}

TEST(ServiceWatchdog, OffWithoutAUsableWatchdogUsec) {
  EXPECT_EQ(watchdog_ping_interval(nullptr, nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval("", nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval("0", nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval("-5", nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval("10s", nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval(" 100", nullptr, 42), std::nullopt);
  EXPECT_EQ(watchdog_ping_interval("99999999999999999999999", nullptr, 42), std::nullopt);  // overflows
}

TEST(ServiceWatchdog, OnlyForTheProcessInWatchdogPid) {
  EXPECT_EQ(watchdog_ping_interval("2000000", "42", 42), microseconds(1'000'000));
  EXPECT_EQ(watchdog_ping_interval("2000000", "43", 42), std::nullopt);  // meant for another process
  EXPECT_EQ(watchdog_ping_interval("2000000", "4x", 42), std::nullopt);
}

TEST(ServiceWatchdog, PingerSendsOncePerIntervalAndOnlyWhileHealthy) {
  std::string path = ::testing::TempDir() + "gpuwatch-watchdog-" + std::to_string(::getpid());
  FakeServiceManager manager(path);
  ASSERT_TRUE(manager.bound());
  ServiceNotifier notifier(path.c_str());
  WatchdogPinger pinger(notifier, milliseconds(100));
  ASSERT_TRUE(pinger.enabled());
  const auto t0 = WatchdogPinger::Clock::now();
  EXPECT_TRUE(pinger.tick(true, t0));  // the first one at once
  EXPECT_EQ(manager.receive(), "WATCHDOG=1");
  EXPECT_FALSE(pinger.tick(true, t0 + milliseconds(99)));   // not due yet
  EXPECT_FALSE(pinger.tick(false, t0 + milliseconds(150)));  // due, but unhealthy: no ping
  EXPECT_TRUE(pinger.tick(true, t0 + milliseconds(200)));
  EXPECT_EQ(manager.receive(), "WATCHDOG=1");
  EXPECT_FALSE(pinger.tick(true, t0 + milliseconds(250)));
}

TEST(ServiceWatchdog, PingerIsOffWithoutIntervalOrSocket) {
  ServiceNotifier no_socket(nullptr);
  EXPECT_FALSE(WatchdogPinger(no_socket, milliseconds(100)).enabled());
  std::string path = ::testing::TempDir() + "gpuwatch-watchdog-off-" + std::to_string(::getpid());
  ServiceNotifier notifier(path.c_str());
  WatchdogPinger pinger(notifier, std::nullopt);
  EXPECT_FALSE(pinger.enabled());
  EXPECT_FALSE(pinger.tick(true, WatchdogPinger::Clock::now()));
}

}  // namespace
}  // namespace gpuwatch::service
