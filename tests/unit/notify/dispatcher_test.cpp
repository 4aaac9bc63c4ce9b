// The dispatcher end to end on exec channels (a shell command is a receiver that needs no
// network): grouping, retry, restart, at most once, a slow channel, stop(); then on HTTP to a
// loopback listener written here (a few lines of sockets): Alertmanager re-sends, stop() mid-request.
#include "notify/dispatcher.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <fstream>
#include <thread>

#include "unit/notify/notify_fixture.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::notify {
namespace dispatcher_test {  // this test file's helpers (unity builds: no clash with another file's)

using alerts::EventKind;
using alerts::Severity;
using namespace std::chrono_literals;
using store::testing::TempDir;
using testing::make_event;

Channel exec_channel(const std::string& name, const std::string& command, std::chrono::milliseconds timeout = 5s) {
  Channel c;
  c.name = name;
  c.type = ChannelType::Exec;
  c.command = command;
  c.timeout = timeout;
  return c;
}

// The complete lines of PATH: a line the receiver is still writing (no newline yet) is left out.
std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (in.eof()) break;  // no '\n' after it
    out.push_back(line);
  }
  return out;
}

// Waits (at most LIMIT) until PATH holds at least N lines.
std::vector<std::string> wait_for_lines(const std::string& path, std::size_t n, std::chrono::milliseconds limit = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto lines = lines_of(path);
    if (lines.size() >= n) return lines;
    std::this_thread::sleep_for(20ms);
  }
  return lines_of(path);
}

DispatcherOptions quick_options(std::vector<std::string>* log = nullptr) {
  DispatcherOptions options;
  options.retry.first_delay = 100ms;
  options.retry.max_delay = 200ms;
  options.log = [log](const std::string& line) {
    if (log) log->push_back(line);
  };
  return options;
}

TEST(NotifyDispatcher, OneMessagePerHostPerBatch) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl");
  Dispatcher dispatcher({exec_channel("x", "cat >> " + out)}, memory_queue(), quick_options());
  dispatcher.start();
  dispatcher.submit({make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3, "a"),
                     make_event(EventKind::Firing, "GpuLost", Severity::Critical, 4, "b"),
                     make_event(EventKind::Resolved, "GpuHungJob", Severity::Warning, 5, "a")});
  const auto lines = wait_for_lines(out, 2);
  ASSERT_EQ(lines.size(), 2u);
  const auto first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["groupLabels"]["host"], "a");
  EXPECT_EQ(first["alerts"].size(), 2u);
  EXPECT_EQ(first["version"], "4");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["groupLabels"]["host"], "b");
  // The receiver wrote its line before it exited: the count follows when the worker sees it exit.
  for (int i = 0; i < 250 && dispatcher.stats()[0].delivered < 2; ++i) std::this_thread::sleep_for(20ms);
  dispatcher.stop();
  EXPECT_EQ(dispatcher.stats()[0].delivered, 2u);
}

TEST(NotifyDispatcher, ReceiverDownThenUpGetsItExactlyOnce) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl"), up = dir.file("up");
  std::vector<std::string> log;
  auto queue = database_queue(dir.file("h.db"));
  ASSERT_TRUE(queue) << queue.error().message;
  Dispatcher dispatcher({exec_channel("x", "test -e " + up + " && cat >> " + out)}, std::move(*queue), quick_options(&log));
  dispatcher.start();
  dispatcher.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, 1)});
  std::this_thread::sleep_for(500ms);  // a few failed attempts
  EXPECT_TRUE(lines_of(out).empty());
  EXPECT_GE(dispatcher.stats()[0].attempts_failed, 2u);
  std::ofstream(up) << "";
  EXPECT_EQ(wait_for_lines(out, 1).size(), 1u);
  std::this_thread::sleep_for(600ms);  // nothing more comes
  EXPECT_EQ(lines_of(out).size(), 1u);
  EXPECT_EQ(dispatcher.pending(), 0);
  dispatcher.stop();
  // The failure was logged once, as was the recovery: changes, not every attempt.
  ASSERT_EQ(log.size(), 2u) << (log.empty() ? "" : log[0]);
  EXPECT_NE(log[0].find("x: delivery failed (status 1: exit status 1); retrying in 100 ms"), std::string::npos) << log[0];
  EXPECT_NE(log[1].find("delivering again"), std::string::npos) << log[1];
}

TEST(NotifyDispatcher, ARestartSendsWhatWasPendingOnce) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl"), up = dir.file("up");
  const Channel channel = exec_channel("x", "test -e " + up + " && cat >> " + out);
  {
    auto queue = database_queue(dir.file("h.db"));
    ASSERT_TRUE(queue);
    Dispatcher first({channel}, std::move(*queue), quick_options());
    first.start();
    first.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, 1)});
    std::this_thread::sleep_for(300ms);
    EXPECT_EQ(first.pending(), 1);
  }  // stopped with the message pending
  std::ofstream(up) << "";
  auto queue = database_queue(dir.file("h.db"));
  ASSERT_TRUE(queue);
  Dispatcher second({channel}, std::move(*queue), quick_options());
  second.start();
  EXPECT_EQ(wait_for_lines(out, 1).size(), 1u);
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(lines_of(out).size(), 1u);
  EXPECT_EQ(second.pending(), 0);
}

TEST(NotifyDispatcher, NoAnswerAfterTheRequestWentOutIsNotSentAgain) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl");
  std::vector<std::string> log;
  Dispatcher dispatcher({exec_channel("x", "cat >> " + out + "; sleep 10", 300ms)}, memory_queue(), quick_options(&log));
  dispatcher.start();
  dispatcher.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, 1)});
  EXPECT_EQ(wait_for_lines(out, 1).size(), 1u);
  std::this_thread::sleep_for(1200ms);  // past the timeout and several backoff delays
  EXPECT_EQ(lines_of(out).size(), 1u);
  dispatcher.stop();
  EXPECT_EQ(dispatcher.stats()[0].failed, 1u);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("not sent again"), std::string::npos) << log.back();
}

TEST(NotifyDispatcher, ASlowChannelDelaysOnlyItselfAndStopIsPrompt) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl");
  Dispatcher dispatcher({exec_channel("slow", "sleep 30", 60s), exec_channel("fast", "cat >> " + out)}, memory_queue(),
                        quick_options());
  dispatcher.start();
  const auto before = std::chrono::steady_clock::now();
  dispatcher.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, 1)});
  EXPECT_LT(std::chrono::steady_clock::now() - before, 50ms);  // submit never waits for a channel
  std::this_thread::sleep_for(200ms);
  dispatcher.submit({make_event(EventKind::Firing, "GpuHot", Severity::Warning, 2)});
  EXPECT_EQ(wait_for_lines(out, 2, 3s).size(), 2u);
  const auto stop_start = std::chrono::steady_clock::now();
  dispatcher.stop();  // the slow call is under way
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start, 2s);
}

TEST(NotifyDispatcher, RateLimitHoldsTheRestInTheQueue) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl");
  Channel channel = exec_channel("x", "cat >> " + out);
  channel.rate_limit = RateLimit{2, std::chrono::seconds(60)};
  Dispatcher dispatcher({channel}, memory_queue(), quick_options());
  dispatcher.start();
  for (unsigned i = 0; i < 4; ++i) dispatcher.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, i)});
  EXPECT_EQ(wait_for_lines(out, 2).size(), 2u);
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(lines_of(out).size(), 2u);
  EXPECT_EQ(dispatcher.pending(), 2);
}

TEST(NotifyDispatcher, ChannelsGetOnlyWhatTheyAskFor) {
  TempDir dir;
  const std::string out = dir.file("out.jsonl");
  Channel channel = exec_channel("x", "cat >> " + out);
  channel.min_severity = Severity::Critical;
  Dispatcher dispatcher({channel}, memory_queue(), quick_options());
  dispatcher.start();
  dispatcher.submit({make_event(EventKind::Firing, "GpuIdle", Severity::Info, 1)});
  dispatcher.submit({make_event(EventKind::Firing, "GpuLost", Severity::Critical, 2)});
  const auto lines = wait_for_lines(out, 1);
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(lines_of(out).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["alerts"][0]["labels"]["alertname"], "GpuLost");
}

// Accepts connections on 127.0.0.1, keeps each request's first line and body, answers 200.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::listen(fd_, 8);
    socklen_t size = sizeof address;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~Listener() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) continue;
      std::string request;
      char buffer[4096];
      const auto deadline = std::chrono::steady_clock::now() + 2s;
      while (std::chrono::steady_clock::now() < deadline) {
        pollfd c{client, POLLIN, 0};
        if (::poll(&c, 1, 50) <= 0) continue;
        const ssize_t n = ::read(client, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<std::size_t>(n));
        const auto end = request.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        const auto length_at = request.find("Content-Length: ");
        const std::size_t length = length_at == std::string::npos ? 0 : std::stoul(request.substr(length_at + 16));
        if (request.size() >= end + 4 + length) break;
      }
      const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)!::write(client, answer.data(), answer.size());
      ::close(client);
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
  }
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> requests_;
};

TEST(NotifyDispatcher, AlertmanagerGetsTheFiringAlertsAgainEveryResendInterval) {
  Listener listener;
  Channel channel;
  channel.name = "am";
  channel.type = ChannelType::Alertmanager;
  channel.url = "http://127.0.0.1:" + std::to_string(listener.port());
  channel.resend_interval = 1s;
  DispatcherOptions options;
  options.log = [](const std::string&) {};
  Dispatcher dispatcher({channel}, memory_queue(), options);
  auto firing = testing::make_event(alerts::EventKind::Firing, "GpuTemperatureHigh", alerts::Severity::Critical, 3);
  dispatcher.update_firing({firing.alert});
  dispatcher.start();
  dispatcher.submit({firing});  // sent at once, then again each second
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (listener.requests().size() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  dispatcher.stop();
  const auto requests = listener.requests();
  ASSERT_GE(requests.size(), 3u);
  for (const auto& request : requests) {
    EXPECT_EQ(request.rfind("POST /api/v2/alerts HTTP/1.1\r\n", 0), 0u) << request.substr(0, 60);
    const auto body = nlohmann::json::parse(request.substr(request.find("\r\n\r\n") + 4));
    ASSERT_EQ(body.size(), 1u);
    EXPECT_EQ(body[0]["labels"]["alertname"], "GpuTemperatureHigh");
  }
  // Nothing firing any more: the re-sends stop.
  Dispatcher quiet({channel}, memory_queue(), options);
  quiet.start();
  std::this_thread::sleep_for(1300ms);
  quiet.stop();
  EXPECT_EQ(listener.requests().size(), requests.size());
}

// A receiver that takes the connection and never answers: stop() still returns at once, and the
// message, whose request went out whole, is not sent again at the next start (at most once).
TEST(NotifyDispatcher, StopIsPromptMidHttpRequest) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 8), 0);  // the kernel completes connections; nobody reads them
  socklen_t size = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  Channel channel;
  channel.name = "hook";
  channel.type = ChannelType::Webhook;
  channel.url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/hook";
  channel.timeout = 60s;
  std::vector<std::string> log;
  DispatcherOptions options;
  options.log = [&log](const std::string& line) { log.push_back(line); };
  Dispatcher dispatcher({channel}, memory_queue(), options);
  dispatcher.start();
  dispatcher.submit({testing::make_event(alerts::EventKind::Firing, "GpuLost", alerts::Severity::Critical, 1)});
  std::this_thread::sleep_for(500ms);  // the request is out, waiting for an answer
  const auto before = std::chrono::steady_clock::now();
  dispatcher.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
  EXPECT_EQ(dispatcher.pending(), 0);
  ASSERT_EQ(dispatcher.stats()[0].failed, 1u);
  EXPECT_NE(dispatcher.stats()[0].last_error.find("stopped"), std::string::npos) << dispatcher.stats()[0].last_error;
  ::close(fd);
}

}  // namespace dispatcher_test
}  // namespace gpuwatch::notify
