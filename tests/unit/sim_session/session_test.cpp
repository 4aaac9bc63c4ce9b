#include "sim_session/session.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cli/exit_codes.hpp"
#include "sim_session/driver_location.hpp"

// Stand-ins started here are this binary again: standin_process_test.cpp makes it one.

namespace gpuwatch::sim_session {
namespace session_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

class SimSessionTest : public testing::Test {
 protected:
  void SetUp() override { ::setenv(kSimDriverDirEnv, GPUWATCH_SIM_DRIVER_DIR, 1); }
  void TearDown() override { ::unsetenv(kSimDriverDirEnv); }
};

std::string value_of(const std::vector<EnvAssignment>& env, const std::string& name) {
  for (const auto& a : env) {
    if (a.name == name) return a.value;
  }
  return "<unset>";
}

// gpuwatch doctor's simulated /proc and /dev (issue 30): written for the session, exported as
// GPUWATCH_HOST_ROOT, removed with it; a folder whose process is gone is swept by the next one.
TEST_F(SimSessionTest, WritesTheSimulatedHostAndRemovesItAfterwards) {
  const fs::path stale = fs::temp_directory_path() / "gpuwatch-host-999999999-stale";  // no such pid
  fs::create_directories(stale / "proc");
  fs::path root;
  {
    auto session = start_sim_session("idle");
    ASSERT_TRUE(session.has_value()) << session.error().message;
    root = (*session)->host_root.path();
    ASSERT_FALSE(root.empty());
    EXPECT_TRUE(fs::exists(root / "proc/modules"));
    EXPECT_TRUE(fs::exists(root / "proc/driver/nvidia/version"));
    EXPECT_TRUE(fs::exists(root / "dev/nvidia0"));
    EXPECT_EQ(value_of((*session)->environment(false), "GPUWATCH_HOST_ROOT"), root.string());
    EXPECT_FALSE(fs::exists(stale));
  }
  EXPECT_FALSE(fs::exists(root));
}

TEST_F(SimSessionTest, TrainingStartsAStandinPerProcess) {
  auto session = start_sim_session("training");
  ASSERT_TRUE(session.has_value()) << session.error().message;
  const SimSession& s = **session;
  EXPECT_EQ(s.scenario, "training");
  EXPECT_EQ(fs::weakly_canonical(s.driver_dir), fs::weakly_canonical(GPUWATCH_SIM_DRIVER_DIR));
  EXPECT_TRUE(fs::exists(s.driver_library()));
  ASSERT_FALSE(s.standins.pids().empty());
  // "gpu:process=pid,..." naming every stand-in.
  for (int pid : s.standins.pids()) {
    EXPECT_NE(s.standin_pids.find("=" + std::to_string(pid)), std::string::npos) << s.standin_pids;
    EXPECT_TRUE(fs::exists("/proc/" + std::to_string(pid)));
  }
  EXPECT_EQ(s.standin_pids.rfind("0:0=", 0), 0u) << s.standin_pids;

  auto child = s.environment(true);
  EXPECT_EQ(value_of(child, "GPUWATCH_SIM_SCENARIO"), "training");
  EXPECT_EQ(value_of(child, "GPUWATCH_SIM_PIDS"), s.standin_pids);
  EXPECT_EQ(value_of(child, "GPUWATCH_NVML_LIBRARY"), s.driver_library().string());
  auto in_process = s.environment(false);
  EXPECT_EQ(value_of(in_process, "LD_LIBRARY_PATH"), "<unset>");
}

// Issue 25: a scenario with `host: signals:` has its host's files rendered by every process of the
// simulation (GPUWATCH_SIM_VENDOR_FILES=1), an NVIDIA-only scenario without them has none.
TEST_F(SimSessionTest, HostSignalsTurnTheRenderedFilesOn) {
  auto host = start_sim_session("host_kernel_bound");
  ASSERT_TRUE(host.has_value()) << host.error().message;
  EXPECT_TRUE((*host)->vendor_files);
  EXPECT_EQ(value_of((*host)->environment(true), "GPUWATCH_SIM_VENDOR_FILES"), "1");
  EXPECT_FALSE(fs::exists((*host)->host_root.path() / "proc/stat")) << "rendered by the processes that read it, not the session";
  auto plain = start_sim_session("training");
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_FALSE((*plain)->vendor_files);
  EXPECT_EQ(value_of((*plain)->environment(true), "GPUWATCH_SIM_VENDOR_FILES"), "<unset>");
}

TEST_F(SimSessionTest, BadScenarioIsAUsageErrorNamingFileLineAndKey) {
  const fs::path file = fs::temp_directory_path() / ("gw_bad_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "name: bad\ngpus:\n  - model: T4\n    colour: red\n";
  auto session = start_sim_session(file.string());
  fs::remove(file);
  ASSERT_FALSE(session.has_value());
  EXPECT_EQ(session.error().code, core::kExitUsage);
  EXPECT_NE(session.error().message.find(file.string()), std::string::npos) << session.error().message;
  EXPECT_NE(session.error().message.find(":4:"), std::string::npos) << session.error().message;
  EXPECT_NE(session.error().message.find("colour"), std::string::npos) << session.error().message;
}

TEST_F(SimSessionTest, MissingDriverIsARuntimeError) {
  ::setenv(kSimDriverDirEnv, "/nonexistent/sim-driver", 1);
  auto session = start_sim_session("idle");
  ASSERT_FALSE(session.has_value());
  EXPECT_EQ(session.error().code, core::kExitRuntimeError);
  EXPECT_NE(session.error().message.find("/nonexistent/sim-driver"), std::string::npos);
}

TEST_F(SimSessionTest, CheckedScenarioKeepsBuiltinNames) {
  auto scenario = checked_scenario("idle");
  ASSERT_TRUE(scenario.has_value()) << scenario.error().message;
  EXPECT_EQ(*scenario, "idle");
  auto unknown = checked_scenario("no-such-scenario-xyz");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, core::kExitUsage);
}

// Issue 9: `--simulate demoo` / `sim run demoo` suggest the closest built-in names.
TEST_F(SimSessionTest, Issue9MisspeltScenarioSuggestsTheClosest) {
  auto misspelt = checked_scenario("demoo");
  ASSERT_FALSE(misspelt.has_value());
  EXPECT_EQ(misspelt.error().code, core::kExitUsage);
  EXPECT_NE(misspelt.error().message.find("Did you mean 'demo'?"), std::string::npos) << misspelt.error().message;
  EXPECT_NE(misspelt.error().message.find("gpuwatch sim list"), std::string::npos);
}

}  // namespace session_test
}  // namespace gpuwatch::sim_session
