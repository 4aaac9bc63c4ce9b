// A process with `pid_file:` is listed with the PID its file holds at each evaluation (gpuwatch
// run's tests attach a real child that way); no file, no process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {
namespace {

class PidFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuwatch-pidfile-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string yaml() const {
    return "gpus:\n  - model: h100\n    phases: [{kind: training, duration: 600}]\n    processes:\n"
           "      - {command: \"python job.py\", memory: 1000, pid_file: job.pid}\n";
  }
  std::vector<unsigned> pids_at(const Simulation& sim, double t) const {
    DynamicSample s;
    sim.evaluate(0, t, s);
    std::vector<unsigned> out;
    for (const auto& p : s.processes) out.push_back(p.pid);
    return out;
  }
  std::string dir_;
};

TEST_F(PidFile, TheProcessAppearsWithThePidTheFileHolds) {
  auto sc = parse_scenario(yaml(), "t.yaml", dir_);  // a relative pid_file is next to the scenario
  ASSERT_TRUE(sc) << sc.error().message;
  EXPECT_EQ(sc->gpus[0].processes[0].pid_file, dir_ + "/job.pid");
  Simulation sim(std::move(*sc), {});
  EXPECT_TRUE(pids_at(sim, 1).empty());  // no file yet: not running
  std::ofstream(dir_ + "/job.pid") << "4321\n";
  EXPECT_EQ(pids_at(sim, 2), std::vector<unsigned>{4321});
  std::ofstream(dir_ + "/job.pid") << "4400";
  EXPECT_EQ(pids_at(sim, 3), std::vector<unsigned>{4400});  // read again at every evaluation
}

TEST_F(PidFile, NeedsNoStandInAndExcludesPidAndPidEnv) {
  std::ofstream(dir_ + "/s.yaml") << yaml();
  auto standins = standin_processes(dir_ + "/s.yaml");
  ASSERT_TRUE(standins);
  EXPECT_TRUE(standins->empty());
  auto both = parse_scenario(
      "gpus:\n  - model: h100\n    processes:\n      - {command: x, pid: 5, pid_file: /tmp/x.pid}\n", "b.yaml", "");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("at most one of pid, pid_env and pid_file"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::sim
