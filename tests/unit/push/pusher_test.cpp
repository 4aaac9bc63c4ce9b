#include "push/pusher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "push/snappy_block.hpp"

namespace pusher_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct FakeReceiver {
  std::mutex mutex;
  bool up = false;
  long refuse_status = 0;  // answer this status instead of 204 when set
  std::vector<std::string> bodies;  // accepted request bodies (uncompressed)
  std::vector<std::string> headers;
  gpuwatch::notify::SendResult post(const gpuwatch::notify::HttpRequest& r) {
    std::lock_guard lock(mutex);
    gpuwatch::notify::SendResult result;
    headers = r.headers;
    if (!up) {
      result.error = "connection refused";
      return result;
    }
    if (refuse_status) {
      result.status = refuse_status;
      result.permanent = true;
      return result;
    }
    result.status = 204;
    result.accepted = true;
    bodies.push_back(*gpuwatch::push::snappy_uncompress(r.body));
    return result;
  }
  std::size_t accepted() {
    std::lock_guard lock(mutex);
    return bodies.size();
  }
};

gpuwatch::push::PusherOptions options_for(FakeReceiver& receiver, const fs::path& dir, std::atomic<int>& ticks) {
  gpuwatch::push::PusherOptions options;
  options.config.url = "http://127.0.0.1:1/api/v1/write";
  options.config.buffer_dir = dir;
  options.interval = 20ms;
  options.collect = [&ticks] { return gpuwatch::push::Collected{true, "m{gpu=\"0\"} " + std::to_string(ticks++) + "\n", {}}; };
  options.post = [&receiver](const gpuwatch::notify::HttpRequest& r, const std::atomic<bool>*) { return receiver.post(r); };
  return options;
}

bool wait_for(const std::function<bool()>& done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(PushPusher, OutageIsBufferedAndResentInOrder) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-pusher-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FakeReceiver receiver;
  std::atomic<int> ticks{0};
  auto pusher = gpuwatch::push::Pusher::start(options_for(receiver, dir, ticks));
  ASSERT_TRUE(pusher) << pusher.error().message;
  ASSERT_TRUE(wait_for([&] { return ticks >= 10; }));  // receiver down: 10 ticks buffered
  EXPECT_GT((*pusher)->health().failed, 0u);
  EXPECT_GT((*pusher)->health().pending, 0u);
  EXPECT_EQ((*pusher)->health().sent, 0u);
  {
    std::lock_guard lock(receiver.mutex);
    receiver.up = true;
  }
  ASSERT_TRUE(wait_for([&] { return receiver.accepted() >= 15; }));
  (*pusher)->stop();
  std::lock_guard lock(receiver.mutex);
  // Every tick's sample arrived once, in time order: the values 0, 1, 2, ... in sequence.
  for (std::size_t i = 0; i < receiver.bodies.size(); ++i) {
    const auto& body = receiver.bodies[i];
    const std::string value_bytes = [&] {
      std::string v(8, '\0');
      const double d = static_cast<double>(i);
      std::memcpy(v.data(), &d, 8);
      return v;
    }();
    EXPECT_NE(body.find(value_bytes), std::string::npos) << "request " << i << " out of order";
  }
  EXPECT_EQ((*pusher)->health().dropped, 0u);
  EXPECT_GE((*pusher)->health().sent, 15u * 5);  // m plus the four health series per tick
  EXPECT_NE(std::find(receiver.headers.begin(), receiver.headers.end(), "Content-Encoding: snappy"), receiver.headers.end());
  EXPECT_NE(std::find(receiver.headers.begin(), receiver.headers.end(), "X-Prometheus-Remote-Write-Version: 0.1.0"),
            receiver.headers.end());
  fs::remove_all(dir);
}

TEST(PushPusher, RefusedDataIsDroppedNotRetried) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-pusher-refused-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FakeReceiver receiver;
  receiver.up = true;
  receiver.refuse_status = 400;
  std::atomic<int> ticks{0};
  auto pusher = gpuwatch::push::Pusher::start(options_for(receiver, dir, ticks));
  ASSERT_TRUE(pusher);
  ASSERT_TRUE(wait_for([&] { return (*pusher)->health().dropped >= 10; }));
  (*pusher)->stop();
  EXPECT_EQ((*pusher)->health().sent, 0u);
  EXPECT_LE((*pusher)->health().pending, 5u);  // at most the tick not yet tried
  std::string text;
  (*pusher)->append_metrics(text);
  EXPECT_NE(text.find("gpuwatch_remote_write_samples_dropped_total "), std::string::npos);
  fs::remove_all(dir);
}

TEST(PushPusher, RequestCarriesAuthAndHeaders) {
  gpuwatch::push::PushConfig config;
  config.url = "https://r/api/v1/write";
  config.bearer_token = "tok";
  const auto request = gpuwatch::push::make_remote_write_request(config, "x");
  EXPECT_EQ(request.headers.size(), 4u);
  EXPECT_EQ(request.headers[1], "Content-Type: application/x-protobuf");
  EXPECT_EQ(request.headers[3], "Authorization: Bearer tok");
}

TEST(PushPusher, NothingQueuedBeforeEveryGpuHasItsFirstSample) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-pusher-unready-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FakeReceiver receiver;
  receiver.up = true;
  std::atomic<int> ticks{0};
  std::atomic<bool> ready{false};
  auto options = options_for(receiver, dir, ticks);
  options.collect = [&] {
    ++ticks;
    if (!ready) return gpuwatch::push::Collected{false, "gpuwatch_gpus 0\ngpuwatch_up{gpu=\"0\"} 0\n", {}};
    return gpuwatch::push::Collected{true, "gpuwatch_gpus 1\ngpuwatch_up{gpu=\"0\",uuid=\"GPU-A\"} 1\n", {}};
  };
  auto pusher = gpuwatch::push::Pusher::start(std::move(options));
  ASSERT_TRUE(pusher);
  ASSERT_TRUE(wait_for([&] { return ticks >= 10; }));
  EXPECT_EQ(receiver.accepted(), 0u);
  EXPECT_EQ((*pusher)->health().pending, 0u);
  EXPECT_EQ((*pusher)->health().sent, 0u);
  EXPECT_TRUE(fs::is_empty(dir));  // no segment written
  ready = true;
  ASSERT_TRUE(wait_for([&] { return receiver.accepted() >= 1; }));
  (*pusher)->stop();
  std::lock_guard lock(receiver.mutex);
  EXPECT_NE(receiver.bodies[0].find("GPU-A"), std::string::npos);
  fs::remove_all(dir);
}

TEST(PushPusher, ByteLimitsInAUnitThatFits) {
  using gpuwatch::push::format_byte_limit;
  EXPECT_EQ(format_byte_limit(512), "512 B");
  EXPECT_EQ(format_byte_limit(512 * 1024), "512 KiB");
  EXPECT_EQ(format_byte_limit(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(format_byte_limit(std::uintmax_t{256} << 20), "256 MiB");
  EXPECT_EQ(format_byte_limit(std::uintmax_t{3} << 30), "3 GiB");
  gpuwatch::push::BufferLimits limits;
  limits.max_bytes = 100 * 1024;
  limits.max_age = std::chrono::minutes(10);
  EXPECT_EQ(gpuwatch::push::buffer_bound_warning(limits, 7),
            "remote-write: WARNING: the buffer reached its bound (100 KiB, 600 s); dropped the oldest 7 samples");
}

TEST(PushPusher, StartLineNamesASmallBoundInKiB) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-pusher-describe-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  FakeReceiver receiver;
  std::atomic<int> ticks{0};
  auto options = options_for(receiver, dir, ticks);
  options.config.limits.max_bytes = 512 * 1024;
  auto pusher = gpuwatch::push::Pusher::start(std::move(options));
  ASSERT_TRUE(pusher);
  EXPECT_NE((*pusher)->describe().find("at most 512 KiB and"), std::string::npos) << (*pusher)->describe();
  (*pusher)->stop();
  fs::remove_all(dir);
}

}  // namespace pusher_test
