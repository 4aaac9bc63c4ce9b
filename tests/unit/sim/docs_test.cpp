// docs/simulator.md carries the query key -> NVML function table of query_keys.def.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/engine/query_keys.hpp"

namespace gpuwatch::sim {
namespace {

TEST(SimulatorDocs, MappingTableMatchesTheCode) {
  std::ifstream in(std::string(GPUWATCH_SOURCE_DIR) + "/docs/simulator.md");
  ASSERT_TRUE(in) << "docs/simulator.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (std::size_t i = 0; i < kKeyCount; ++i) {
    const auto& info = key_info(static_cast<Key>(i));
    std::string needle = info.nvml_source.empty()
                             ? "`" + std::string(info.name) + "`"
                             : "| `" + std::string(info.name) + "` | " + std::string(info.nvml_source) + " |";
    EXPECT_NE(doc.find(needle), std::string::npos) << info.name;
  }
}

}  // namespace
}  // namespace gpuwatch::sim
