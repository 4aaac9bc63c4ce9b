#include "sim_session/environment.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

namespace gpuwatch::sim_session {
namespace environment_test {  // this test file's helpers (unity builds: no clash with another file's)

EnvLookup lookup_in(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string value_of(const std::vector<EnvAssignment>& env, const std::string& name) {
  for (const auto& a : env) {
    if (a.name == name) return a.value;
  }
  return "<unset>";
}

TEST(SimEnvironment, PrependsDriverDirToLibraryPath) {
  EXPECT_EQ(prepend_search_path("/d", nullptr), "/d");
  EXPECT_EQ(prepend_search_path("/d", ""), "/d");
  EXPECT_EQ(prepend_search_path("/d", "/a:/b"), "/d:/a:/b");
}

TEST(SimEnvironment, ChildGetsDriverScenarioEpochAndPids) {
  SimEnvironmentInput input{"/opt/sim-driver", "demo", "0:0=123", true};
  auto env = sim_environment(input, lookup_in({{"LD_LIBRARY_PATH", "/usr/local/lib"}}), 1700000000123);
  EXPECT_EQ(value_of(env, "LD_LIBRARY_PATH"), "/opt/sim-driver:/usr/local/lib");
  EXPECT_EQ(value_of(env, "GPUWATCH_NVML_LIBRARY"), "/opt/sim-driver/libnvidia-ml.so.1");
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_SCENARIO"), "demo");
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_EPOCH_MS"), "1700000000123");
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_PIDS"), "0:0=123");
}

TEST(SimEnvironment, KeepsAnEpochThatIsAlreadySet) {
  SimEnvironmentInput input{"/d", "demo", "", true};
  auto env = sim_environment(input, lookup_in({{"GPUWATCH_SIM_EPOCH_MS", "42"}}), 99);
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_EPOCH_MS"), "<unset>");
  // An empty stand-in list still overrides an inherited one.
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_PIDS"), "");
}

TEST(SimEnvironment, InProcessLeavesLoaderPathsAlone) {
  SimEnvironmentInput input{"/d", "demo", "", false};
  auto env = sim_environment(input, lookup_in({}), 5);
  EXPECT_EQ(value_of(env, "LD_LIBRARY_PATH"), "<unset>");
  EXPECT_EQ(value_of(env, "GPUWATCH_NVML_LIBRARY"), "<unset>");
  EXPECT_EQ(value_of(env, "GPUWATCH_SIM_EPOCH_MS"), "5");
}

TEST(SimEnvironment, IntelGpusPointLevelZeroAtTheSimulatedDriver) {
  SimEnvironmentInput input{"/d", "demo_mixed", "", false};
  input.ze_driver = "/b/sim-ze/libze_gpuwatch_sim.so.1";
  auto env = sim_environment(input, lookup_in({}), 5);
  EXPECT_EQ(value_of(env, "ZE_ENABLE_ALT_DRIVERS"), "/b/sim-ze/libze_gpuwatch_sim.so.1");
  EXPECT_EQ(value_of(env, "ZES_ENABLE_SYSMAN"), "1");
  // Without Intel GPUs (no driver file given) neither is set.
  auto plain = sim_environment(SimEnvironmentInput{"/d", "demo", "", true}, lookup_in({}), 5);
  EXPECT_EQ(value_of(plain, "ZE_ENABLE_ALT_DRIVERS"), "<unset>");
  EXPECT_EQ(value_of(plain, "ZES_ENABLE_SYSMAN"), "<unset>");
}

TEST(SimEnvironment, BuiltinNameStaysAndFilePathBecomesAbsolute) {
  const std::vector<std::string> builtins = {"demo", "idle"};
  EXPECT_EQ(resolve_scenario_argument("demo", builtins), "demo");
  EXPECT_EQ(resolve_scenario_argument("no-such-thing", builtins), "no-such-thing");

  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("gw_sim_env_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "mine.yaml") << "name: mine\n";
  const fs::path old = fs::current_path();
  fs::current_path(dir);
  const std::string resolved = resolve_scenario_argument("mine.yaml", builtins);
  const std::string relative = resolve_scenario_argument("./mine.yaml", builtins);
  fs::current_path(old);
  fs::remove_all(dir);
  EXPECT_EQ(resolved, (dir / "mine.yaml").string());
  EXPECT_EQ(relative, (dir / "mine.yaml").string());
}

TEST(SimEnvironment, UnixTimeIsNow) {
  EXPECT_GT(unix_time_ms(), 1'600'000'000'000);  // after 2020
}

}  // namespace environment_test
}  // namespace gpuwatch::sim_session
