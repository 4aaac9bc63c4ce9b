#include "host/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gpuwatch::host {
namespace child_process_test {

std::string output_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

std::string read_and_remove(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::remove(path.c_str());
  return text.str();
}

TEST(ChildProcess, AnAddedVariableReplacesOursOnce) {
  ::setenv("GPUWATCH_CHILD_TEST_VAR", "ours", 1);
  const std::string out = output_path("gpuwatch-child-env-");
  auto child = ChildProcess::start(
      {"/bin/sh", "-c", "printf '%s:%s' \"$(env | grep -c '^GPUWATCH_CHILD_TEST_VAR=')\" \"$GPUWATCH_CHILD_TEST_VAR\" > " + out},
      {{"GPUWATCH_CHILD_TEST_VAR", "added"}});
  ::unsetenv("GPUWATCH_CHILD_TEST_VAR");
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_EQ((*child)->wait().status, 0);
  EXPECT_EQ(read_and_remove(out), "1:added");
}

TEST(ChildProcess, AnIgnoredSignalStaysIgnoredInUsAndInTheChild) {
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGHUP, &ignore, &before);
  const std::string out = output_path("gpuwatch-child-sigign-");
  auto child = ChildProcess::start({"/bin/sh", "-c", "grep '^SigIgn:' /proc/$$/status > " + out});
  ASSERT_TRUE(child) << child.error().message;
  struct sigaction during {};
  ::sigaction(SIGHUP, nullptr, &during);
  EXPECT_EQ(during.sa_handler, SIG_IGN);
  EXPECT_EQ((*child)->wait().status, 0);
  child->reset();
  struct sigaction after {};
  ::sigaction(SIGHUP, nullptr, &after);
  ::sigaction(SIGHUP, &before, nullptr);
  EXPECT_EQ(after.sa_handler, SIG_IGN);
  const std::string line = read_and_remove(out);  // "SigIgn:\t0000000000000001\n": bit 0 is SIGHUP
  ASSERT_GT(line.size(), 2u) << line;
  const unsigned long mask = std::strtoul(line.substr(line.find(':') + 1).c_str(), nullptr, 16);
  EXPECT_EQ(mask & 1u, 1u) << line;
}

TEST(ChildProcess, NoCommandIs127) {
  auto child = ChildProcess::start({});
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().code, 127);
}

}  // namespace child_process_test
}  // namespace gpuwatch::host
