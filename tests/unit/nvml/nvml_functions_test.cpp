#include "nvml/nvml_functions.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpuwatch::nvml {
namespace {

int dummy_symbol = 0;

SymbolLookup lookup_of(std::set<std::string> names) {
  return [names](const char* name) -> void* { return names.count(name) ? &dummy_symbol : nullptr; };
}

TEST(NvmlFunctions, FamiliesListNewestVersionFirst) {
  for (const auto& family : symbol_families()) {
    if (family.logical == "nvmlDeviceGetComputeRunningProcesses") {
      ASSERT_EQ(family.names.size(), 3u);
      EXPECT_EQ(family.names[0], "nvmlDeviceGetComputeRunningProcesses_v3");
      EXPECT_EQ(family.names[1], "nvmlDeviceGetComputeRunningProcesses_v2");
      EXPECT_EQ(family.names[2], "nvmlDeviceGetComputeRunningProcesses");
      EXPECT_FALSE(family.required);
      return;
    }
  }
  FAIL() << "no family for the compute process functions";
}

TEST(NvmlFunctions, OnlyInitShutdownCountHandleAndErrorStringAreRequired) {
  std::set<std::string> required;
  for (const auto& family : symbol_families()) {
    if (family.required) required.insert(std::string(family.logical));
  }
  EXPECT_EQ(required, (std::set<std::string>{"nvmlInit", "nvmlShutdown", "nvmlDeviceGetCount",
                                             "nvmlDeviceGetHandleByIndex", "nvmlErrorString"}));
}

TEST(NvmlFunctions, ResolvesOnlyWhatTheLibraryExports) {
  auto fns = resolve_functions(lookup_of({"nvmlInit", "nvmlDeviceGetMemoryInfo", "nvmlErrorString"}));
  EXPECT_NE(fns.nvmlInit, nullptr);
  EXPECT_EQ(fns.nvmlInit_v2, nullptr);
  EXPECT_NE(fns.nvmlDeviceGetMemoryInfo, nullptr);
  EXPECT_EQ(fns.nvmlDeviceGetMemoryInfo_v2, nullptr);
  EXPECT_NE(fns.nvmlErrorString, nullptr);
}

TEST(NvmlFunctions, LegacyNamesSatisfyTheRequiredFamilies) {
  auto fns = resolve_functions(lookup_of({"nvmlInit", "nvmlShutdown", "nvmlDeviceGetCount",
                                          "nvmlDeviceGetHandleByIndex", "nvmlErrorString"}));
  EXPECT_TRUE(missing_required(fns).empty());
}

TEST(NvmlFunctions, MissingRequiredNamesTheFamilies) {
  auto fns = resolve_functions(lookup_of({"nvmlInitWithFlags", "nvmlErrorString", "nvmlDeviceGetCount_v2"}));
  EXPECT_EQ(missing_required(fns), (std::vector<std::string>{"nvmlShutdown", "nvmlDeviceGetHandleByIndex"}));
}

}  // namespace
}  // namespace gpuwatch::nvml
