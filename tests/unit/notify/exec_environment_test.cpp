#include "notify/exec_environment.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace gpuwatch::notify {
namespace exec_environment_test {  // this test file's helpers (unity builds)

using Env = std::map<std::string, std::string>;

std::vector<std::string> environment_of(const std::vector<std::string>& names, const Env& serve) {
  return exec_environment(names, [&serve](const std::string& name) -> const char* {
    auto found = serve.find(name);
    return found == serve.end() ? nullptr : found->second.c_str();
  });
}

TEST(ExecEnvironment, OnlyPathLangAndTheNamedVariables) {
  const Env serve{{"PATH", "/opt/bin:/usr/bin"},
                  {"LANG", "C.UTF-8"},
                  {"SECRET_TOKEN", "tk_another_channels"},  // another channel's token_env
                  {"SMTP_PASSWORD", "hunter2"},
                  {"HOME", "/root"},
                  {"RUNBOOK_URL", "https://wiki/runbook"}};
  EXPECT_EQ(environment_of({"RUNBOOK_URL", "NOT_SET"}, serve),
            (std::vector<std::string>{"PATH=/opt/bin:/usr/bin", "LANG=C.UTF-8", "RUNBOOK_URL=https://wiki/runbook"}));
}

TEST(ExecEnvironment, ADefaultPathWhenServeHasNone) {
  EXPECT_EQ(environment_of({}, Env{{"SECRET_TOKEN", "x"}}), (std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin"}));
  EXPECT_EQ(environment_of({"PATH"}, Env{}), (std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin"}))
      << "naming PATH adds nothing twice";
}

TEST(ExecEnvironment, NamesAreChecked) {
  EXPECT_TRUE(is_environment_name("RUNBOOK_URL"));
  EXPECT_TRUE(is_environment_name("_x1"));
  EXPECT_FALSE(is_environment_name(""));
  EXPECT_FALSE(is_environment_name("1X"));
  EXPECT_FALSE(is_environment_name("A=B"));
  EXPECT_EQ(environment_of({"A=B"}, Env{{"PATH", "/bin"}, {"A=B", "x"}}), (std::vector<std::string>{"PATH=/bin"}));
}

}  // namespace exec_environment_test
}  // namespace gpuwatch::notify
