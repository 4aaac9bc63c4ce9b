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

TEST(HostFields, EachSetsBackWhatItReads) {
  // The history reads a stored row back through set: every key must reach its own member.
  double value = 1;
  for (const auto& field : host_fields()) {
    HostSample s;
    field.set(s, value);
    EXPECT_EQ(field.get(s), value) << field.key;
    for (const auto& other : host_fields()) {
      if (other.key != field.key) EXPECT_FALSE(other.get(s)) << field.key << " also set " << other.key;
    }
    field.set(s, std::nullopt);
    EXPECT_FALSE(field.get(s)) << field.key;
    value += 1;
  }
  HostSample s;
  for (const auto& field : host_fields()) {
    if (field.whole) field.set(s, -5);  // a count is never negative: absent
    if (field.whole) EXPECT_FALSE(field.get(s)) << field.key;
  }
}

}  // namespace host_fields_test
}  // namespace gpuwatch::host_signals
