// issue 16: inputs read whole are regular files under a limit; a FIFO never blocks.
#include "core/bounded_read.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace gpuwatch::core {
namespace bounded_read_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/gw_bounded_read_XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(BoundedRead, ReadsARegularFile) {
  TempDir dir;
  std::ofstream(dir.path / "a.csv") << "name, power.draw [W]\nH100, 300 W\n";
  auto text = read_regular_file((dir.path / "a.csv").string(), "capture");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "name, power.draw [W]\nH100, 300 W\n");
}

TEST(BoundedRead, AFifoIsRefusedAtOnce) {
  TempDir dir;
  const fs::path fifo = dir.path / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto started = std::chrono::steady_clock::now();
  auto text = read_regular_file(fifo.string(), "replay file");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "replay file '" + fifo.string() + "' is a FIFO (named pipe): give a regular file");
}

TEST(BoundedRead, DevZeroIsRefusedWithoutReading) {
  auto text = read_regular_file("/dev/zero", "capture");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "capture '/dev/zero' is a device: give a regular file");
}

TEST(BoundedRead, AFileOverTheLimitIsRefused) {
  TempDir dir;
  std::ofstream(dir.path / "big") << std::string(2048, 'x');
  auto text = read_regular_file((dir.path / "big").string(), "capture", 1024);
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("2048 bytes: the limit is"), std::string::npos) << text.error().message;
  EXPECT_TRUE(read_regular_file((dir.path / "big").string(), "capture", 4096));
}

TEST(BoundedRead, TheDefaultLimitIs64MiB) { EXPECT_EQ(kMaxInputFileBytes, 64u << 20); }

}  // namespace bounded_read_test
}  // namespace gpuwatch::core
