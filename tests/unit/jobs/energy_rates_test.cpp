#include "jobs/energy_rates.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace gpuwatch::jobs {
namespace energy_rates_test {  // this test file's helpers (unity builds: no clash with another file's)

TEST(EnergyRates, ATableIsAStepFunctionThatWrapsRoundMidnight) {
  Rate r{std::nullopt, {{7, 0.30}, {22, 0.10}}, "t"};
  EXPECT_DOUBLE_EQ(r.at_hour(7), 0.30);
  EXPECT_DOUBLE_EQ(r.at_hour(21), 0.30);
  EXPECT_DOUBLE_EQ(r.at_hour(23), 0.10);
  EXPECT_DOUBLE_EQ(r.at_hour(3), 0.10);  // before 07:00: yesterday's 22:00 rate
  Rate fixed{0.5, {}, "f"};
  EXPECT_DOUBLE_EQ(fixed.at_hour(12), 0.5);
}

TEST(EnergyRates, CsvTableWithHeaderAndComments) {
  auto t = parse_hour_table_csv("hour,gco2_per_kwh\n# night\n0,120\n\n 14 , 350.5\r\n");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(*t, (std::map<int, double>{{0, 120}, {14, 350.5}}));
  EXPECT_FALSE(parse_hour_table_csv("0,1\n24,3\n"));
  EXPECT_FALSE(parse_hour_table_csv("0,1\n3,x\n"));
  EXPECT_FALSE(parse_hour_table_csv("1.5,3\n"));
  EXPECT_FALSE(parse_hour_table_csv("# nothing\n"));
}

TEST(EnergyRates, AFlagIsANumberOrATableFile) {
  auto fixed = read_rate_option("0.12", "--price-per-kwh", RateKind::Price);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->fixed, 0.12);
  EXPECT_EQ(fixed->origin, "--price-per-kwh");
  EXPECT_FALSE(read_rate_option("0.9", "--pue", RateKind::Pue));  // a PUE is at least 1
  EXPECT_FALSE(read_rate_option("-3", "--carbon-intensity", RateKind::Carbon));
  auto missing = read_rate_option("/nonexistent/table.csv", "--price-per-kwh", RateKind::Price);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("neither a number nor a readable table"), std::string::npos);

  const std::string path = ::testing::TempDir() + "energy_rates_test_grid.csv";
  std::ofstream(path) << "hour,g\n0,100\n12,300\n";
  auto table = read_rate_option(path, "--carbon-intensity", RateKind::Carbon);
  std::remove(path.c_str());
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->origin, "table energy_rates_test_grid.csv");
  EXPECT_DOUBLE_EQ(table->at_hour(13), 300);
}

TEST(EnergyRates, YamlConfigFixedMapAndList) {
  std::string list = "[";
  for (int h = 0; h < 24; ++h) list += std::to_string(100 + h) + (h < 23 ? "," : "]");
  auto r = parse_energy_config("currency: EUR\nprice_per_kwh: {0: 0.1, 18: 0.3}\npue: 1.25\ncarbon_intensity: " + list + "\n",
                               "--energy-config e.yaml");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->currency, "EUR");
  EXPECT_EQ(r->currency_origin, "--energy-config e.yaml");
  EXPECT_DOUBLE_EQ(r->price->at_hour(19), 0.3);
  EXPECT_EQ(r->pue->fixed, 1.25);
  EXPECT_DOUBLE_EQ(r->carbon->at_hour(5), 105);
  EXPECT_EQ(r->carbon->origin, "--energy-config e.yaml");
}

TEST(EnergyRates, YamlConfigErrorsNameTheKey) {
  auto unknown = parse_energy_config("price: 1\n", "--energy-config e.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown key 'price'"), std::string::npos);
  EXPECT_FALSE(parse_energy_config("carbon_intensity: [1, 2]\n", "e"));  // not 24 values
  EXPECT_FALSE(parse_energy_config("pue: {25: 1.2}\n", "e"));
  EXPECT_FALSE(parse_energy_config("pue: 0.5\n", "e"));
  EXPECT_FALSE(parse_energy_config("price_per_kwh: cheap\n", "e"));
}

TEST(EnergyRates, FlagsOverrideTheConfigFile) {
  const std::string path = ::testing::TempDir() + "energy_rates_test_config.yaml";
  std::ofstream(path) << "price_per_kwh: 0.3\npue: 1.4\n";
  auto r = energy_rates_from_options(path, "0.1", "", "250", "");
  std::remove(path.c_str());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->price->fixed, 0.1);
  EXPECT_EQ(r->price->origin, "--price-per-kwh");
  EXPECT_EQ(r->pue->fixed, 1.4);
  EXPECT_EQ(r->pue->origin, "--energy-config energy_rates_test_config.yaml");
  EXPECT_EQ(r->carbon->fixed, 250);
  EXPECT_EQ(r->currency, "USD");
}

TEST(EnergyRates, TheDefaultConfigIsReadWhenItExistsAndNamedByItsPath) {
  EXPECT_EQ(default_energy_config_path("/x", "/home/a"), "/x/gpuwatch/energy.yaml");
  EXPECT_EQ(default_energy_config_path(nullptr, "/home/a"), "/home/a/.config/gpuwatch/energy.yaml");
  EXPECT_EQ(default_energy_config_path("relative", nullptr), "");
  const std::string path = ::testing::TempDir() + "energy_rates_test_default.yaml";
  std::ofstream(path) << "carbon_intensity: 123\n";
  auto r = energy_rates_from_options("", "", "", "", "", path);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->carbon->fixed, 123);
  EXPECT_EQ(r->carbon->origin, path);
  auto absent = energy_rates_from_options("", "", "", "", "", path + ".absent");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->carbon);
  std::remove(path.c_str());
}

}  // namespace energy_rates_test
}  // namespace gpuwatch::jobs
