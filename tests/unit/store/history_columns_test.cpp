#include "store/history_columns.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gpuwatch::store {
namespace {

using core::FieldId;
using core::FieldReading;

const HistoryColumn& column(FieldId id) {
  const HistoryColumn* c = find_history_column(id);
  EXPECT_NE(c, nullptr);
  return *c;
}

TEST(HistoryColumns, NamesFollowTheStorageRule) {
  EXPECT_EQ(column(FieldId::UtilizationGpu).name, "utilization_gpu_percent");
  EXPECT_EQ(column(FieldId::PowerDraw).name, "power_draw_mw");
  EXPECT_EQ(column(FieldId::EnergyTotal).name, "energy_total_mj");
  EXPECT_EQ(column(FieldId::ClocksCurrentSm).name, "clocks_current_sm_mhz");
  EXPECT_EQ(column(FieldId::MemoryUsed).name, "memory_used_bytes");
  EXPECT_EQ(column(FieldId::TemperatureGpu).name, "temperature_gpu_c");
  EXPECT_EQ(column(FieldId::MemoryUsed).sql_type, "INTEGER");
  EXPECT_EQ(column(FieldId::PowerDraw).sql_type, "REAL");
  EXPECT_EQ(find_history_column(FieldId::Name), nullptr);  // identity lives in gpus, not per sample
}

TEST(HistoryColumns, NamesAreUniqueSqlIdentifiers) {
  std::set<std::string> names;
  for (const auto& c : history_columns()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_EQ(c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"), std::string::npos) << c.name;
  }
  EXPECT_GE(names.size(), 20U);
}

TEST(HistoryColumns, AbsentIsNullAndZeroIsZero) {
  const auto& util = column(FieldId::UtilizationGpu);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      encode_reading(util, FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3}))));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(encode_reading(util, FieldReading{})));
  SqlValue zero = encode_reading(util, FieldReading::of(0.0));
  ASSERT_TRUE(std::holds_alternative<double>(zero));
  EXPECT_EQ(std::get<double>(zero), 0.0);
  FieldReading back = decode_reading(util, std::monostate{});
  EXPECT_FALSE(back.ok());
  EXPECT_FALSE(back.value.has_value());
}

TEST(HistoryColumns, ScaledValuesAreIntegralAndRoundTrip) {
  const auto& util = column(FieldId::UtilizationGpu);
  SqlValue stored = encode_reading(util, FieldReading::of(93 * 1e-2));  // as nvml/ computes it
  ASSERT_TRUE(std::holds_alternative<double>(stored));
  EXPECT_EQ(std::get<double>(stored), 93.0);  // exactly: SQLite keeps it as a 1-byte integer
  FieldReading back = decode_reading(util, stored);
  ASSERT_TRUE(back.ok());
  ASSERT_TRUE(std::holds_alternative<double>(*back.value));
  EXPECT_NEAR(std::get<double>(*back.value), 0.93, 1e-12);

  const auto& power = column(FieldId::PowerDraw);
  EXPECT_EQ(std::get<double>(encode_reading(power, FieldReading::of(312.456))), 312456.0);
  const auto& clock = column(FieldId::ClocksCurrentSm);
  SqlValue mhz = encode_reading(clock, FieldReading::of(std::uint64_t{1410000000}));
  EXPECT_EQ(std::get<double>(mhz), 1410.0);
  FieldReading hz = decode_reading(clock, std::int64_t{1410});  // SQLite may hand back an integer
  ASSERT_TRUE(std::holds_alternative<std::uint64_t>(*hz.value));
  EXPECT_EQ(std::get<std::uint64_t>(*hz.value), 1410000000U);
}

TEST(HistoryColumns, UnsignedBitMasksKeepEveryBit) {
  const auto& reasons = column(FieldId::ClocksEventReasonsActive);
  std::uint64_t mask = (1ULL << 63) | 0x5;
  FieldReading back = decode_reading(reasons, encode_reading(reasons, FieldReading::of(mask)));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::get<std::uint64_t>(*back.value), mask);
}

TEST(HistoryColumns, SignedValuesStaySigned) {
  const auto& pstate = column(FieldId::Pstate);
  FieldReading back = decode_reading(pstate, encode_reading(pstate, FieldReading::of(std::int64_t{8})));
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(*back.value));
  EXPECT_EQ(std::get<std::int64_t>(*back.value), 8);
}

}  // namespace
}  // namespace gpuwatch::store
