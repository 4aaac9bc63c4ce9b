#include "dmon/format.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::dmon {
namespace {

DmonOptions default_options() {
  DmonOptions options;
  options.columns = parse_dmon_select("puc").value();
  return options;
}

// Lines copied from the real `nvidia-smi dmon -c 5` captures in shared/realdata.
TEST(DmonFormat, DefaultHeaderMatchesNvidiaSmi) {
  EXPECT_EQ(dmon_header(default_options()),
            "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
            "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n");
}

TEST(DmonFormat, RowWithUnsupportedMemoryTemperature) {  // GeForce RTX 2080 SUPER, load
  DmonRow row{0, {98, 45, std::nullopt, 8, 3, 100, 0, 0, 0, 7500, 2055}};
  EXPECT_EQ(dmon_row(default_options(), row),
            "    0     98     45      -      8      3    100      0      0      0   7500   2055 \n");
}

TEST(DmonFormat, RowOfMigParentWithoutUtilization) {  // H100 in MIG mode, load
  DmonRow row{0, {438, 55, 61, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                  std::nullopt, 2619, 1980}};
  EXPECT_EQ(dmon_row(default_options(), row),
            "    0    438     55     61      -      -      -      -      -      -   2619   1980 \n");
}

TEST(DmonFormat, ZeroIsPrintedAsZeroNotDash) {
  DmonOptions options;
  options.columns = parse_dmon_select("p").value();
  EXPECT_EQ(dmon_row(options, DmonRow{3, {0, 0, std::nullopt}}), "    3      0      0      - \n");
}

TEST(DmonFormat, GroupsFollowNvidiaSmiOrderWhateverTheLetterOrder) {
  auto columns = parse_dmon_select("tp").value();
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[0], DmonColumn::PowerW);
  EXPECT_EQ(columns[3], DmonColumn::PcieRxMbps);
  EXPECT_EQ(columns[4], DmonColumn::PcieTxMbps);
}

TEST(DmonFormat, AllGroupsHeader) {
  DmonOptions options;
  options.columns = parse_dmon_select("pucvmet").value();
  EXPECT_EQ(options.columns.size(), 21u);
  std::string header = dmon_header(options);
  EXPECT_NE(header.find(" pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"),
            std::string::npos);
  EXPECT_NE(header.find("      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n"),
            std::string::npos);
}

TEST(DmonFormat, RejectsUnknownGroupAndEmptySelection) {
  EXPECT_FALSE(parse_dmon_select("px").has_value());
  EXPECT_FALSE(parse_dmon_select("").has_value());
}

TEST(DmonFormat, DateAndTimeColumnsAlignWithHeader) {
  DmonOptions options;
  options.columns = parse_dmon_select("p").value();
  ASSERT_TRUE(parse_dmon_output_options("DT", options).has_value());
  std::tm when{};
  when.tm_year = 2026 - 1900;
  when.tm_mon = 10;
  when.tm_mday = 29;
  when.tm_hour = 14;
  when.tm_min = 5;
  when.tm_sec = 9;
  EXPECT_EQ(dmon_header(options),
            "#Date     Time      gpu    pwr  gtemp  mtemp \n"
            "#YYYYMMDD HH:MM:SS  Idx      W      C      C \n");
  EXPECT_EQ(dmon_row(options, DmonRow{1, {70, 42, 48}}, when),
            " 20261129 14:05:09    1     70     42     48 \n");
  EXPECT_FALSE(parse_dmon_output_options("X", options).has_value());
}

}  // namespace
}  // namespace gpuwatch::dmon
