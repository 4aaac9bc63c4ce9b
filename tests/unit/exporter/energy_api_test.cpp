#include "exporter/energy_api.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace gpuwatch::exporter {
namespace energy_api_test {  // this test file's helpers (unity builds: no clash with another file's)

constexpr double kGib = 1024.0 * 1024 * 1024;

std::size_t column(core::FieldId field) {
  for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f)
    if (live::kHistoryFields[f] == field) return f;
  return live::kHistoryFields.size();
}

struct Sample {
  unsigned gpu;
  double t;
  double counter_j = NAN, power_w = NAN, utilization = NAN, memory_bytes = NAN, reasons = NAN;
};

live::HistoryRow row(const Sample& s) {
  live::HistoryRow r;
  r.gpu = s.gpu;
  r.timestamp_s = s.t;
  r.up = true;
  r.values.fill(std::nan(""));
  r.values[column(core::FieldId::EnergyTotal)] = s.counter_j;
  r.values[column(core::FieldId::PowerDraw)] = s.power_w;
  r.values[column(core::FieldId::UtilizationGpu)] = s.utilization;
  r.values[column(core::FieldId::MemoryUsed)] = s.memory_bytes;
  r.values[column(core::FieldId::ClocksEventReasonsActive)] = s.reasons;
  return r;
}

int utc_hour(jobs::TimePoint) { return 0; }

nlohmann::json answer(const std::vector<live::HistoryRow>& rows, const std::vector<unsigned>& gpus,
                      const jobs::EnergyRates& rates = {}, HistoryOrigin origin = {}) {
  return nlohmann::json::parse(energy_api_json(rows, gpus, EnergyWindow{60.0, 160.0, 1.0}, origin, rates, utc_hour));
}

jobs::EnergyRates eur_rates() {
  jobs::EnergyRates rates;
  rates.price = jobs::Rate{0.30, {}, "--price-per-kwh"};
  rates.carbon = jobs::Rate{400.0, {}, "--carbon-intensity"};
  rates.currency = "EUR";
  rates.currency_origin = "--currency";
  return rates;
}

// GPU 0 has the counter (1000 -> 1250 J over 2 s, while power says 100 W); GPU 1 has power only
// (200 W for 2 s: 400 J by trapezoids); GPU 2 reports neither.
std::vector<live::HistoryRow> three_gpus() {
  return {row({0, 100, 1000, 100}), row({0, 101, 1100, 100}), row({0, 102, 1250, 100}),
          row({1, 100, NAN, 200}),  row({1, 101, NAN, 200}),  row({1, 102, NAN, 200}),
          row({2, 100}),            row({2, 101}),            row({2, 102})};
}

TEST(EnergyApi, TheCounterWhereAGpuHasItElsePowerIntegratedAsEstimated) {
  const auto json = answer(three_gpus(), {0, 1, 2});
  const auto& energy = json["energy"];
  ASSERT_TRUE(energy.is_object()) << json.dump();
  ASSERT_EQ(energy["gpus"].size(), 2u) << "GPU 2 gave no energy: absent, not 0";
  EXPECT_EQ(energy["gpus"][0]["index"], 0);
  EXPECT_EQ(energy["gpus"][0]["source"], "counter");
  EXPECT_DOUBLE_EQ(energy["gpus"][0]["joules"].get<double>(), 250.0);  // the counter, not 200 J of power
  EXPECT_EQ(energy["gpus"][1]["index"], 1);
  EXPECT_EQ(energy["gpus"][1]["source"], "estimated");
  EXPECT_DOUBLE_EQ(energy["gpus"][1]["joules"].get<double>(), 400.0);
  EXPECT_EQ(energy["source"], "mixed");
  EXPECT_DOUBLE_EQ(energy["joules"].get<double>(), 650.0);
}

TEST(EnergyApi, AGpuAskedForAloneAndRowsOfOthersIgnored) {
  const auto json = answer(three_gpus(), {1});
  ASSERT_EQ(json["energy"]["gpus"].size(), 1u);
  EXPECT_EQ(json["energy"]["source"], "estimated");
  EXPECT_DOUBLE_EQ(json["energy"]["joules"].get<double>(), 400.0);
  // A GPU without energy alone: no energy at all is null, never 0.
  const auto none = answer(three_gpus(), {2});
  EXPECT_TRUE(none["energy"].is_null()) << none.dump();
  EXPECT_EQ(none["range"]["first_sample_s"], 100.0);  // it has samples, just no energy
}

TEST(EnergyApi, ThrottledShareFromTheClockEventReasonsOfTheClosingSample) {
  // 100 J per interval; the 2nd interval closes on sw power cap (0x4), the 3rd on idle (0x1) and
  // application clocks (0x2), which are not throttling, the 4th on hw thermal slowdown (0x40).
  const std::vector<live::HistoryRow> rows = {row({0, 100, 0, NAN, 0.5, 0, 0}), row({0, 101, 100, NAN, 0.5, 0, 0}),
                                              row({0, 102, 200, NAN, 0.5, 0, 0x4}), row({0, 103, 300, NAN, 0.5, 0, 0x3}),
                                              row({0, 104, 400, NAN, 0.5, 0, 0x40})};
  const auto json = answer(rows, {0});
  const auto& waste = json["energy"]["waste"];
  EXPECT_DOUBLE_EQ(waste["joules"].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(waste["throttled_joules"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(waste["throttled_share"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(waste["idle_memory_held_joules"].get<double>(), 0.0);
}

TEST(EnergyApi, IdleWithMemoryHeldFromUtilizationAndMemoryUsed) {
  const std::vector<live::HistoryRow> rows = {row({0, 100, 0, NAN, 0, 2 * kGib}), row({0, 101, 60, NAN, 0, 2 * kGib}),
                                              row({0, 102, 240, NAN, 0.9, 2 * kGib})};
  const auto json = answer(rows, {0});
  const auto& waste = json["energy"]["waste"];
  EXPECT_DOUBLE_EQ(waste["idle_memory_held_joules"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(waste["idle_memory_held_share"].get<double>(), 0.25);
}

TEST(EnergyApi, FindingsAreNotConsideredTheirSharesAreNullNotZero) {
  const auto json = answer(three_gpus(), {0, 1, 2});
  EXPECT_EQ(json["findings_considered"], false);
  EXPECT_TRUE(json["energy"]["waste"]["finding_active_joules"].is_null());
  EXPECT_TRUE(json["energy"]["waste"]["finding_active_share"].is_null());
}

TEST(EnergyApi, CostAndCarbonAreTheJoulesInKwhTimesTheRates) {
  const auto json = answer(three_gpus(), {0, 1, 2}, eur_rates());
  const auto& energy = json["energy"];
  EXPECT_NEAR(energy["cost"].get<double>(), 650.0 / 3.6e6 * 0.30, 1e-15);
  EXPECT_NEAR(energy["co2_g"].get<double>(), 650.0 / 3.6e6 * 400, 1e-12);
  EXPECT_EQ(energy["currency"], "EUR");
  const auto sources = energy["sources"].dump();
  EXPECT_NE(sources.find("price 0.3 EUR/kWh from --price-per-kwh"), std::string::npos) << sources;
  EXPECT_NE(sources.find("grid 400 gCO2/kWh from --carbon-intensity"), std::string::npos) << sources;
  EXPECT_TRUE(energy["hints"].empty());
}

TEST(EnergyApi, WithoutRatesCostAndCarbonAreNullAndTheHintsSayWhatToSet) {
  const auto json = answer(three_gpus(), {0, 1, 2});
  const auto& energy = json["energy"];
  EXPECT_TRUE(energy["cost"].is_null());
  EXPECT_TRUE(energy["co2_g"].is_null());
  EXPECT_TRUE(energy["currency"].is_null());
  ASSERT_EQ(energy["hints"].size(), 2u);
  EXPECT_NE(energy["hints"][0].get<std::string>().find("--price-per-kwh"), std::string::npos);
  EXPECT_NE(energy["hints"][1].get<std::string>().find("--carbon-intensity"), std::string::npos);
}

TEST(EnergyApi, RangeAndOriginSayWhatWasAskedAndWhatAnswered) {
  HistoryOrigin origin;
  origin.source = "store";
  origin.resolution_s = 10.0;
  const auto json = answer(three_gpus(), {0, 1, 2}, {}, origin);
  EXPECT_EQ(json["range"]["seconds"], 60.0);
  EXPECT_EQ(json["range"]["since_s"], 100.0);
  EXPECT_EQ(json["range"]["until_s"], 160.0);
  EXPECT_EQ(json["range"]["first_sample_s"], 100.0);
  EXPECT_EQ(json["range"]["last_sample_s"], 102.0);
  EXPECT_EQ(json["origin"]["source"], "store");
  EXPECT_EQ(json["origin"]["resolution_s"], 10.0);
  EXPECT_FALSE(json["origin"].contains("store_error"));
  // No rows at all: no energy, no samples; without ?seconds= the window starts at its end.
  const auto empty = nlohmann::json::parse(energy_api_json({}, {0}, EnergyWindow{std::nullopt, 160.0, 1.0}, {}, {}, utc_hour));
  EXPECT_TRUE(empty["energy"].is_null());
  EXPECT_TRUE(empty["range"]["seconds"].is_null());
  EXPECT_TRUE(empty["range"]["first_sample_s"].is_null());
  EXPECT_EQ(empty["range"]["since_s"], 160.0);
  EXPECT_EQ(empty["origin"]["source"], "memory");
  EXPECT_TRUE(empty["origin"]["resolution_s"].is_null());
}

TEST(EnergyApi, ARowsPointKeepsAbsentValuesAbsent) {
  const auto p = energy_point(row({0, 100}));
  EXPECT_FALSE(p.counter_j);
  EXPECT_FALSE(p.power_w);
  EXPECT_FALSE(p.utilization);
  EXPECT_FALSE(p.memory_used_bytes);
  EXPECT_FALSE(p.throttled);
  const auto timelines = energy_timelines({row({0, 100, 5}), row({3, 100, 7})}, {0, 1});
  ASSERT_EQ(timelines.size(), 2u);
  EXPECT_EQ(timelines.at(0).points.size(), 1u);
  EXPECT_TRUE(timelines.at(1).points.empty());  // asked for, no rows
}

}  // namespace energy_api_test
}  // namespace gpuwatch::exporter
