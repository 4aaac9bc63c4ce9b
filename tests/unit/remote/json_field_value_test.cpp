#include "remote/json_field_value.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gpuwatch::remote {
namespace json_field_value_test {

TEST(JsonFieldValue, NumbersKeepTheirKind) {
  EXPECT_EQ(field_value_of_json(nlohmann::json(std::uint64_t{18446744073709551615ULL}), JsonText::dropped),
            core::FieldValue(std::uint64_t{18446744073709551615ULL}));
  EXPECT_EQ(field_value_of_json(nlohmann::json(-5), JsonText::dropped), core::FieldValue(std::int64_t{-5}));
  EXPECT_EQ(field_value_of_json(nlohmann::json(0.25), JsonText::dropped), core::FieldValue(0.25));
  EXPECT_EQ(field_value_of_json(nlohmann::json(true), JsonText::dropped), core::FieldValue(true));
}

TEST(JsonFieldValue, NullIsAbsentNeverZero) {
  EXPECT_EQ(field_value_of_json(nlohmann::json(nullptr), JsonText::kept), std::nullopt);
  EXPECT_EQ(field_value_of_json(nlohmann::json::array({1}), JsonText::kept), std::nullopt);
}

TEST(JsonFieldValue, AStringOnlyWhenTextIsKept) {
  EXPECT_EQ(field_value_of_json(nlohmann::json("NVIDIA H100"), JsonText::kept), core::FieldValue(std::string("NVIDIA H100")));
  EXPECT_EQ(field_value_of_json(nlohmann::json("40"), JsonText::dropped), std::nullopt);
}

}  // namespace json_field_value_test
}  // namespace gpuwatch::remote
