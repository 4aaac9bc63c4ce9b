// A process's command line alone, read with a bound (host/command_line.hpp).
#include "host/command_line.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::host {
namespace {

namespace fs = std::filesystem;

class FakeCmdline : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuwatch-cmdline-" + std::to_string(getpid()));
    fs::create_directories(root_ / "77");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& content) { std::ofstream(root_ / "77" / "cmdline", std::ios::binary) << content; }
  fs::path root_;
};

TEST_F(FakeCmdline, JoinsTheArgumentsWithSpaces) {
  write(std::string("python\0eval_server.py\0--port\0" "8500\0", 34));
  EXPECT_EQ(read_command_line(77, 4096, root_.string()), "python eval_server.py --port 8500");
}

TEST_F(FakeCmdline, ReadsNoMoreThanTheBound) {
  write("python " + std::string(100'000, 'x'));
  auto text = read_command_line(77, 100, root_.string());
  ASSERT_TRUE(text);
  EXPECT_EQ(text->size(), 100U);
  EXPECT_EQ(text->substr(0, 7), "python ");
}

TEST_F(FakeCmdline, EmptyOrMissingIsAbsent) {
  write("");  // a kernel thread or a zombie
  EXPECT_FALSE(read_command_line(77, 4096, root_.string()));
  EXPECT_FALSE(read_command_line(78, 4096, root_.string()));  // no such process
}

}  // namespace
}  // namespace gpuwatch::host
