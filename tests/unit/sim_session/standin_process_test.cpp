#include "sim_session/standin_process.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "sim_session/driver_location.hpp"

namespace gpuwatch::sim_session {
namespace {

// The stand-ins these tests start are this test binary started again: like gpuwatch's
// run_app(), it must become a stand-in before doing anything else.
const bool kBecomesStandinWhenAsked = [] {
  if (standin_requested()) run_standin();
  return true;
}();

bool alive(int pid) {
  // A zombie is not alive for our purpose: look at the state in /proc/<pid>/stat.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_text, comm, state;
  if (!(stat >> pid_text >> comm >> state)) return false;
  return state != "Z" && state != "X";
}

std::string read_cmdline(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_comm(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

bool gone_within(int pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (!alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !alive(pid);
}

TEST(StandinProcess, ShowsTheCommandLineAndDiesOnStop) {
  ASSERT_TRUE(kBecomesStandinWhenAsked);
  StandinGroup group;
  auto pids = group.start({{"python", "train.py", "--model", "llama"}, {"/usr/bin/torchrun", "x.py"}},
                          current_executable());
  ASSERT_TRUE(pids.has_value()) << pids.error().message;
  ASSERT_EQ(pids->size(), 2u);
  for (int pid : *pids) EXPECT_TRUE(alive(pid));
  EXPECT_EQ(read_cmdline(pids->at(0)), std::string("python\0train.py\0--model\0llama\0", 30));
  EXPECT_EQ(read_comm(pids->at(0)), "python");
  EXPECT_EQ(read_comm(pids->at(1)), "torchrun");
  // Own process group: a Ctrl-C meant for the real command does not reach them.
  EXPECT_EQ(::getpgid(pids->at(0)), pids->at(0));
  EXPECT_EQ(group.pids(), *pids);

  group.stop();
  for (int pid : *pids) EXPECT_FALSE(alive(pid));
  EXPECT_TRUE(group.pids().empty());
  group.stop();  // twice is fine
}

TEST(StandinProcess, DestructorKillsThem) {
  std::vector<int> pids;
  {
    StandinGroup group;
    auto started = group.start({{"sleepy"}}, current_executable());
    ASSERT_TRUE(started.has_value()) << started.error().message;
    pids = *started;
  }
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_FALSE(alive(pids[0]));
}

TEST(StandinProcess, DieWithTheirParentEvenOnSigkill) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // an intermediate process that starts stand-ins and waits to be killed
    ::close(report[0]);
    StandinGroup group;
    auto pids = group.start({{"python", "a.py"}, {"python", "b.py"}}, current_executable());
    int out[2] = {-1, -1};
    if (pids && pids->size() == 2) std::copy(pids->begin(), pids->end(), out);
    if (::write(report[1], out, sizeof out) != sizeof out) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(report[1]);
  int standins[2] = {-1, -1};
  ASSERT_EQ(::read(report[0], standins, sizeof standins), static_cast<ssize_t>(sizeof standins));
  ::close(report[0]);
  ASSERT_GT(standins[0], 0);
  EXPECT_TRUE(alive(standins[0]));
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  // They are re-parented (to init or a subreaper) and killed by the kernel.
  EXPECT_TRUE(gone_within(standins[0], std::chrono::seconds(3)));
  EXPECT_TRUE(gone_within(standins[1], std::chrono::seconds(3)));
}

TEST(StandinProcess, AnExecutableThatIsNoStandinIsAnError) {
  StandinGroup group;
  auto pids = group.start({{"python", "x.py"}}, "/bin/true");
  ASSERT_FALSE(pids.has_value());
  EXPECT_NE(pids.error().message.find("python"), std::string::npos) << pids.error().message;
  EXPECT_TRUE(group.pids().empty());
}

TEST(StandinProcess, NotRequestedInANormalRun) { EXPECT_FALSE(standin_requested()); }

}  // namespace
}  // namespace gpuwatch::sim_session
