#include "exporter/listen_backlog.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gpuwatch::exporter {
namespace {

// A TCP socket on 127.0.0.1, any port; listening with BACKLOG when LISTEN.
struct LoopbackSocket {
  int fd = -1;
  int port = 0;
  LoopbackSocket(bool listen, int backlog) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    if (listen) ::listen(fd, backlog);
  }
  ~LoopbackSocket() { ::close(fd); }
};

TEST(ListenBacklog, WidensTheListeningSocketOnThatPortOnly) {
  LoopbackSocket listening(true, 5);
  LoopbackSocket other(true, 5);
  ASSERT_GT(listening.port, 0);
  EXPECT_EQ(widen_listen_backlog(listening.port, SOMAXCONN), 1);
  EXPECT_EQ(widen_listen_backlog(other.port, SOMAXCONN), 1);
  // Still a listening socket: a client connects.
  int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(listening.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(client);
}

TEST(ListenBacklog, LeavesABoundButNotListeningSocketAlone) {
  LoopbackSocket bound(false, 0);
  ASSERT_GT(bound.port, 0);
  EXPECT_EQ(widen_listen_backlog(bound.port, SOMAXCONN), 0);
  int accepting = 1;
  socklen_t length = sizeof accepting;
  ::getsockopt(bound.fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length);
  EXPECT_EQ(accepting, 0);  // listen() was not called on it
}

}  // namespace
}  // namespace gpuwatch::exporter
