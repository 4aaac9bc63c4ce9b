// Level Zero Sysman through a fake function table: devices matched by PCI address, memory summed
// over the device's modules, temperatures by sensor type, utilization as a rate of counters.
#include "intel/sysman_reader.hpp"

#include <gtest/gtest.h>

#include "fake_sysman.hpp"

namespace sysman_reader_test {

using namespace gpuwatch::intel;

class IntelSysmanTest : public ::testing::Test {
 protected:
  void SetUp() override { fake_sysman::state = {}; }
  SysmanFunctions f = fake_sysman::functions();
};

TEST_F(IntelSysmanTest, MatchesDevicesByPciAddressAndDescribesThem) {
  auto other = fake_sysman::max_1550();
  other.address = {0, 0x9a, 0, 0};
  other.model = "unknown";  // falls back to the core name
  fake_sysman::state.devices = {fake_sysman::max_1550(), other};
  auto session = open_sysman(f);
  ASSERT_TRUE(session) << session.error().message;
  EXPECT_EQ(session->driver_version, "16842752");
  ASSERT_EQ(session->devices.size(), 2u);

  const SysmanDevice* a = find_sysman_device(*session, PciAddress{0, 0x3a, 0, 0});
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(a->serial, "LQAC12345678");
  EXPECT_EQ(a->uuid, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
  const SysmanDevice* b = find_sysman_device(*session, *parse_pci_address("0000:9a:00.0"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "Intel(R) Data Center GPU Max 1550 core");
  EXPECT_EQ(find_sysman_device(*session, PciAddress{0, 0x3a, 0, 1}), nullptr);  // the function counts
}

TEST_F(IntelSysmanTest, MemoryIsTheDevicesModulesSummedWithoutSystemMemory) {
  fake_sysman::state.devices = {fake_sysman::max_1550()};
  auto session = open_sysman(f);
  ASSERT_TRUE(session);
  SysmanMemory m;
  ASSERT_EQ(read_sysman_memory(f, session->devices[0], &m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.total, 128ull << 30);
  EXPECT_EQ(m.used, (16ull + 4ull) << 30);  // size - free of each local module
}

TEST_F(IntelSysmanTest, TemperaturesAreTheHottestSensorOfEachType) {
  fake_sysman::state.devices = {fake_sysman::max_1550()};
  auto session = open_sysman(f);
  ASSERT_TRUE(session);
  const SysmanDevice& d = session->devices[0];
  EXPECT_EQ(d.gpu_sensors.size(), 2u);
  EXPECT_EQ(d.memory_sensors.size(), 1u);  // GLOBAL is neither
  double c = 0;
  ASSERT_EQ(read_sysman_temperature(f, d.gpu_sensors, &c), ZE_RESULT_SUCCESS);
  EXPECT_DOUBLE_EQ(c, 58.6);
  ASSERT_EQ(read_sysman_temperature(f, d.memory_sensors, &c), ZE_RESULT_SUCCESS);
  EXPECT_DOUBLE_EQ(c, 47.0);
  EXPECT_EQ(read_sysman_temperature(f, {}, &c), ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
}

TEST_F(IntelSysmanTest, UtilizationIsActiveTimeOverTimestampOfTheAllGroup) {
  fake_sysman::state.devices = {fake_sysman::max_1550()};
  auto session = open_sysman(f);
  ASSERT_TRUE(session);
  const SysmanDevice& d = session->devices[0];
  ASSERT_EQ(d.engines.size(), 1u);  // ALL, not COMPUTE_ALL beside it
  EngineCounters before, after;
  ASSERT_EQ(read_sysman_engines(f, d, &before), ZE_RESULT_SUCCESS);
  fake_sysman::state.devices[0].engines[0].stats = {1000 + 750, 10000 + 1000};
  ASSERT_EQ(read_sysman_engines(f, d, &after), ZE_RESULT_SUCCESS);
  ASSERT_TRUE(engine_utilization(before, after));
  EXPECT_DOUBLE_EQ(*engine_utilization(before, after), 0.75);
  EXPECT_FALSE(engine_utilization(after, after));  // no time passed
  EXPECT_FALSE(engine_utilization(after, before));  // counters went back
}

TEST_F(IntelSysmanTest, WithoutAnAllGroupTheBusiestOfComputeAndRenderCounts) {
  auto d = fake_sysman::max_1550();
  d.engines = {{ZES_ENGINE_GROUP_COMPUTE_ALL, false, {0, 0}},
               {ZES_ENGINE_GROUP_RENDER_ALL, false, {0, 0}},
               {ZES_ENGINE_GROUP_ALL, true, {0, 0}},  // a sub-device's: not the device's
               {ZES_ENGINE_GROUP_COPY_ALL, false, {0, 0}}};
  fake_sysman::state.devices = {d};
  auto session = open_sysman(f);
  ASSERT_TRUE(session);
  ASSERT_EQ(session->devices[0].engines.size(), 2u);
  EngineCounters before{{{0, 0}, {0, 0}}};
  EngineCounters after{{{200, 1000}, {600, 1000}}};
  EXPECT_DOUBLE_EQ(*engine_utilization(before, after), 0.6);
}

TEST_F(IntelSysmanTest, InitFailureAndNoDeviceAreErrorsWithTheResult) {
  fake_sysman::state.init_result = ZE_RESULT_ERROR_UNINITIALIZED;
  auto failed = open_sysman(f);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, static_cast<int>(ZE_RESULT_ERROR_UNINITIALIZED));
  EXPECT_NE(failed.error().message.find("zeInit"), std::string::npos);

  fake_sysman::state.init_result = ZE_RESULT_SUCCESS;
  auto empty = open_sysman(f);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no Level Zero device"), std::string::npos);
}

TEST_F(IntelSysmanTest, PciAddressesParseAndPrintBothSpellings) {
  auto a = parse_pci_address("0000:c1:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 0xc1u);
  EXPECT_EQ(slot_name(*a), "0000:c1:00.0");
  EXPECT_EQ(nvml_bus_id(*a), "00000000:C1:00.0");
  EXPECT_FALSE(parse_pci_address("0000:c1:00"));
  EXPECT_FALSE(parse_pci_address("0000:c1:00.0x"));
}

}  // namespace sysman_reader_test
