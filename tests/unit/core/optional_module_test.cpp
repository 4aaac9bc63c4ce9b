#include "core/optional_module.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace gpuwatch::core {
namespace {

TEST(OptionalModule, LooksBesideTheBinaryThenInTheInstalledTree) {
  auto dirs = module_candidates("/opt/build/gpuwatch", nullptr);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/opt/build/modules");
  EXPECT_EQ(dirs[1], "/opt/lib/gpuwatch/modules");
  EXPECT_EQ(module_candidates("/usr/bin/gpuwatch", "")[1], "/usr/lib/gpuwatch/modules");  // empty: not set
}

TEST(OptionalModule, TheEnvironmentOverridesEverything) {
  auto dirs = module_candidates("/usr/bin/gpuwatch", "/srv/modules");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0], "/srv/modules");
}

// The build's modules (the tests point GPUWATCH_MODULE_DIR at <build>/modules).
TEST(OptionalModule, LoadsABuiltModuleAndFindsItsEntryPoints) {
  auto version = module_function<const char*()>("gpuwatch-curl.so", kModuleVersionSymbol);
  ASSERT_TRUE(version) << version.error().message;
  EXPECT_STRNE(version->call(), "");
  EXPECT_TRUE(module_symbol("gpuwatch-curl.so", "gpuwatch_curl_http_post_v3"));  // notify/curl_module/curl_module.hpp
  auto missing = module_symbol("gpuwatch-curl.so", "no_such_entry_point");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("has no no_such_entry_point"), std::string::npos);
}

TEST(OptionalModule, AMissingModuleSaysWhereItLookedAndWhatToDo) {
  auto missing = module_symbol("gpuwatch-nothing.so", "entry");
  ASSERT_FALSE(missing);
  const std::string& message = missing.error().message;
  EXPECT_NE(message.find("gpuwatch-nothing.so is not installed"), std::string::npos) << message;
  EXPECT_NE(message.find(std::getenv(kModuleDirEnv)), std::string::npos) << message;
  EXPECT_NE(message.find(kModuleDirEnv), std::string::npos) << message;
  EXPECT_FALSE(module_symbol("gpuwatch-nothing.so", "entry"));  // remembered, same answer
}

}  // namespace
}  // namespace gpuwatch::core
