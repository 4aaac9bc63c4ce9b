#include "sim_session/driver_location.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace gpuwatch::sim_session {
namespace {

namespace fs = std::filesystem;

TEST(SimDriverLocation, BuildTreeThenInstallTree) {
  auto dirs = sim_driver_candidates("/opt/gw/bin/gpuwatch", nullptr);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], fs::path("/opt/gw/bin/sim-driver"));
  EXPECT_EQ(dirs[1], fs::path("/opt/gw/lib/gpuwatch/sim-driver"));
}

TEST(SimDriverLocation, EnvironmentOverrides) {
  auto dirs = sim_driver_candidates("/opt/gw/bin/gpuwatch", "/elsewhere/sim-driver");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0], fs::path("/elsewhere/sim-driver"));
  auto legacy = sim_driver_candidates("/opt/gw/bin/gpuwatch", "/elsewhere/sim-driver", "sim-driver-legacy");
  EXPECT_EQ(legacy.at(0), fs::path("/elsewhere/sim-driver-legacy"));
  // An empty variable is the same as an unset one.
  EXPECT_EQ(sim_driver_candidates("/x/gpuwatch", "").size(), 2u);
}

TEST(SimDriverLocation, CurrentExecutableIsThisTest) {
  EXPECT_EQ(current_executable().filename(), "unit_tests");
}

TEST(SimDriverLocation, FindsTheOverrideOrSaysWhereItLooked) {
  const fs::path dir = fs::temp_directory_path() / ("gw_sim_driver_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const char* old = std::getenv(kSimDriverDirEnv);
  const std::string saved = old ? old : "";
  ::setenv(kSimDriverDirEnv, dir.c_str(), 1);

  auto missing = find_sim_driver_dir();
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find(dir.string()), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("libnvidia-ml.so.1"), std::string::npos);

  std::ofstream(dir / "libnvidia-ml.so.1") << "x";
  auto found = find_sim_driver_dir();
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(*found, dir);

  if (old) ::setenv(kSimDriverDirEnv, saved.c_str(), 1); else ::unsetenv(kSimDriverDirEnv);
  fs::remove_all(dir);
}

TEST(SimDriverLocation, FindsTheLevelZeroDriverBesideTheNvmlOne) {
  const fs::path base = fs::temp_directory_path() / ("gw_sim_ze_" + std::to_string(::getpid()));
  fs::create_directories(base / "sim-driver");
  fs::create_directories(base / "sim-ze");
  const char* old = std::getenv(kSimDriverDirEnv);
  const std::string saved = old ? old : "";
  ::setenv(kSimDriverDirEnv, (base / "sim-driver").c_str(), 1);

  auto missing = find_sim_ze_driver();
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find((base / "sim-ze").string()), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find("libze_gpuwatch_sim.so.1"), std::string::npos);

  std::ofstream(base / "sim-ze" / "libze_gpuwatch_sim.so.1") << "x";
  auto found = find_sim_ze_driver();
  ASSERT_TRUE(found.has_value()) << found.error().message;
  EXPECT_EQ(*found, base / "sim-ze" / "libze_gpuwatch_sim.so.1");

  if (old) ::setenv(kSimDriverDirEnv, saved.c_str(), 1); else ::unsetenv(kSimDriverDirEnv);
  fs::remove_all(base);
}

}  // namespace
}  // namespace gpuwatch::sim_session
