#include "store/database_path.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/engine/sim_api.hpp"

namespace gpuwatch::store {
namespace paths_test {  // this test file's helpers (unity builds: no clash with another file's)

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuwatch-record-XXXXXX").string();
    path = mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string path;
};

TEST(RecordPaths, DefaultFollowsXdgStateHome) {
  EXPECT_EQ(default_database_path("/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("relative/dir", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, nullptr), "");
}

TEST(RecordPaths, SystemdStateDirectoryComesFirst) {
  // StateDirectory=gpuwatch in the unit: STATE_DIRECTORY=/var/lib/gpuwatch.
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch", "/var/state", "/home/a"), "/var/lib/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch/", nullptr, nullptr), "/var/lib/gpuwatch/history.db");
  // Several StateDirectory= entries: colon-separated, the first is ours.
  EXPECT_EQ(default_database_path("/var/lib/gpuwatch:/var/lib/other", nullptr, "/home/a"),
            "/var/lib/gpuwatch/history.db");
}

TEST(RecordPaths, InvalidStateDirectoryFallsBackToXdgThenHome) {
  EXPECT_EQ(default_database_path("relative/state", "/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("", "/var/state", "/home/a"), "/var/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(":/var/lib/gpuwatch", nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("/", nullptr, "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path(nullptr, "relative", "/home/a"), "/home/a/.local/state/gpuwatch/history.db");
  EXPECT_EQ(default_database_path("rel", "rel", nullptr), "");
}

TEST(RecordPaths, EnvironmentDefaultReadsStateDirectory) {
  const char* saved = std::getenv("STATE_DIRECTORY");
  const std::string saved_value = saved ? saved : "";
  // Other tests in this binary run on the simulator (GPUWATCH_SIM_SCENARIO set): the real default here.
  const char* scenario = std::getenv("GPUWATCH_SIM_SCENARIO");
  const std::string saved_scenario = scenario ? scenario : "";
  ::unsetenv("GPUWATCH_SIM_SCENARIO");
  ::setenv("STATE_DIRECTORY", "/var/lib/gpuwatch", 1);
  EXPECT_EQ(default_database_path(), "/var/lib/gpuwatch/history.db");
  ::setenv("STATE_DIRECTORY", "not/absolute", 1);
  EXPECT_NE(default_database_path(), "not/absolute/history.db");
  if (saved) ::setenv("STATE_DIRECTORY", saved_value.c_str(), 1);
  else ::unsetenv("STATE_DIRECTORY");
  if (scenario) ::setenv("GPUWATCH_SIM_SCENARIO", saved_scenario.c_str(), 1);
  EXPECT_NE(no_default_database_message().find("STATE_DIRECTORY"), std::string::npos);
}

TEST(RecordPaths, CreatesMissingFolders) {
  TempDir dir;
  std::string db = dir.path + "/state/gpuwatch/history.db";
  ASSERT_TRUE(prepare_database_directory(db));
  EXPECT_TRUE(fs::is_directory(dir.path + "/state/gpuwatch"));
  EXPECT_TRUE(prepare_database_directory(db));  // again: nothing to do
}

TEST(RecordPaths, AFileInTheWayIsAClearError) {
  TempDir dir;
  std::ofstream(dir.path + "/blocker") << "x";
  auto result = prepare_database_directory(dir.path + "/blocker/history.db");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("blocker"), std::string::npos) << result.error().message;
  auto deeper = prepare_database_directory(dir.path + "/blocker/sub/history.db");
  ASSERT_FALSE(deeper);
  EXPECT_NE(deeper.error().message.find("cannot create the folder"), std::string::npos) << deeper.error().message;
}

TEST(RecordPaths, ReadOnlyFolderIsRefused) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  TempDir dir;
  fs::create_directory(dir.path + "/ro");
  fs::permissions(dir.path + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
  auto result = prepare_database_directory(dir.path + "/ro/history.db");
  fs::permissions(dir.path + "/ro", fs::perms::owner_all);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("cannot write"), std::string::npos);
}

// issue 9: `--simulate demo serve` / `record` wrote into ~/.local/state/gpuwatch/history.db.
TEST(RecordPaths, ASimulatedScenarioGetsItsOwnDatabaseBesideTheRealOne) {
  const std::string real = "/home/a/.local/state/gpuwatch/history.db";
  EXPECT_EQ(simulated_database_path("demo", real), "/home/a/.local/state/gpuwatch/simulated/demo.db");
  EXPECT_EQ(simulated_database_path("/tmp/x/node.yaml", real), "/home/a/.local/state/gpuwatch/simulated/node.db");
  EXPECT_EQ(simulated_database_path("/tmp/my scenario.yml", real),
            "/home/a/.local/state/gpuwatch/simulated/my_scenario.db");
  EXPECT_EQ(simulated_database_path("idle", "/var/lib/gpuwatch/history.db"), "/var/lib/gpuwatch/simulated/idle.db");
  EXPECT_EQ(simulated_database_path("demo", ""), "");
}

TEST(RecordPaths, TheEnvironmentDefaultUnderASimulationIsNeverTheRealHistory) {
  EXPECT_STREQ(sim::kScenarioEnv, "GPUWATCH_SIM_SCENARIO");  // read by name in paths.cpp
  const char* saved_scenario = std::getenv(sim::kScenarioEnv);
  const std::string saved_value = saved_scenario ? saved_scenario : "";
  const char* saved_xdg = std::getenv("XDG_STATE_HOME");
  const std::string saved_xdg_value = saved_xdg ? saved_xdg : "";
  const char* saved_state = std::getenv("STATE_DIRECTORY");
  const std::string saved_state_value = saved_state ? saved_state : "";
  ::setenv("XDG_STATE_HOME", "/state", 1);
  ::unsetenv("STATE_DIRECTORY");
  ::unsetenv(sim::kScenarioEnv);
  EXPECT_EQ(simulated_scenario_from_environment(), "");
  EXPECT_EQ(default_database_path(), "/state/gpuwatch/history.db");
  ::setenv(sim::kScenarioEnv, "thermal_runaway", 1);  // what --simulate and `sim run` set
  EXPECT_EQ(simulated_scenario_from_environment(), "thermal_runaway");
  EXPECT_EQ(default_database_path(), "/state/gpuwatch/simulated/thermal_runaway.db");
  if (saved_scenario) ::setenv(sim::kScenarioEnv, saved_value.c_str(), 1);
  else ::unsetenv(sim::kScenarioEnv);
  if (saved_xdg) ::setenv("XDG_STATE_HOME", saved_xdg_value.c_str(), 1);
  else ::unsetenv("XDG_STATE_HOME");
  if (saved_state) ::setenv("STATE_DIRECTORY", saved_state_value.c_str(), 1);
}

}  // namespace paths_test
}  // namespace gpuwatch::store
