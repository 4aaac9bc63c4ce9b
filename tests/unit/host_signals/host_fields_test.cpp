#include "host_signals/host_fields.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gpuwatch::host_signals {
namespace host_fields_test {

TEST(HostFields, KeysAreUniqueAndCarryTheirUnit) {
  std::set<std::string_view> keys;
  for (const auto& field : host_fields()) {
    EXPECT_TRUE(keys.insert(field.key).second) << field.key;
    const std::string key(field.key);
    const bool has_unit = key.ends_with("_percent") || key.ends_with("_bytes") || key.ends_with("_per_s") || key.ends_with("_s");
    EXPECT_TRUE(has_unit) << key;
  }
  EXPECT_TRUE(keys.count("cpu_busy_percent"));
}

TEST(HostFields, ReadTheirMemberAndAbsentStaysAbsent) {
  HostSample s;
  s.cpu_busy_percent = 42;
  s.memory_total_bytes = 1024;
  for (const auto& field : host_fields()) {
    const auto v = field.get(s);
    if (field.key == "cpu_busy_percent") EXPECT_EQ(v, 42.0);
    else if (field.key == "memory_total_bytes") EXPECT_TRUE(v == 1024.0 && field.whole);
    else EXPECT_FALSE(v) << field.key;
  }
}

}  // namespace host_fields_test
}  // namespace gpuwatch::host_signals
