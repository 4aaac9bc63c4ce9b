#include "amd/amd_backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/field_table.hpp"
#include "unit/amd/fake_amd_tree.hpp"

namespace gpuwatch::amd {
namespace amd_backend_test {

using core::FieldId;
using core::FieldStatus;
using fake_amd_tree::CountingTree;
using fake_amd_tree::FakeAmdTree;

std::unique_ptr<backend::DeviceBackend> open_over(const FakeAmdTree& tree,
                                                  std::shared_ptr<backend::SimulatedTree> sim = nullptr) {
  backend::OpenOptions options;
  options.host_root = tree.root();
  options.simulated_tree = std::move(sim);
  auto opened = open_backend(options);
  if (!opened) ADD_FAILURE() << opened.error().message;
  return opened ? std::move(*opened) : nullptr;
}

// Reads FIELD of device INDEX through its read group, as the sampler does.
core::FieldReading read(const backend::DeviceBackend& backend, FieldId field, unsigned index = 0) {
  backend::DeviceHandle dev;
  EXPECT_TRUE(backend.handle_by_index(index, &dev).ok());
  core::DeviceSnapshot device;
  device.index = index + 4;  // as the sampler sets it: the global index (4 NVIDIA GPUs before)
  const FieldId fields[] = {field};
  static_cast<void>(backend.read_source(dev, core::field_info(field).source, fields, device));
  return device.get(field);
}

double number(const backend::DeviceBackend& backend, FieldId field) {
  const auto r = read(backend, field);
  EXPECT_TRUE(r.ok()) << core::field_info(field).name << ": " << core::to_string(r.status);
  return r.as_double().value_or(-1);
}

TEST(AmdBackend, ReadsEveryContractFileInBaseUnits) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  EXPECT_EQ(backend->vendor(), core::Vendor::Amd);
  EXPECT_EQ(read(*backend, FieldId::Name).as_string(), "AMD Instinct MI300X");
  EXPECT_EQ(read(*backend, FieldId::Uuid).as_string(), "AMD-2d7a3b1c0f9e4a11");
  EXPECT_EQ(read(*backend, FieldId::Serial).as_string(), "PCB123456789");
  EXPECT_EQ(read(*backend, FieldId::PciBusId).as_string(), "00000000:C1:00.0");
  EXPECT_EQ(number(*backend, FieldId::PciBus), 0xc1);
  EXPECT_EQ(number(*backend, FieldId::PciDeviceId), double((0x74a1u << 16) | 0x1002u));
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::UtilizationGpu), 0.42);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::UtilizationMemory), 0.17);
  EXPECT_EQ(number(*backend, FieldId::MemoryTotal), 206141652992.0);
  EXPECT_EQ(number(*backend, FieldId::MemoryUsed), 1073741824.0);
  EXPECT_EQ(number(*backend, FieldId::MemoryFree), 206141652992.0 - 1073741824.0);
  EXPECT_EQ(number(*backend, FieldId::TemperatureGpu), 45);       // edge, m°C -> °C
  EXPECT_EQ(number(*backend, FieldId::TemperatureMemory), 60);    // temp3 "mem"
  EXPECT_EQ(number(*backend, FieldId::TemperatureGpuSlowdown), 100);
  EXPECT_EQ(number(*backend, FieldId::TemperatureGpuShutdown), 105);
  EXPECT_EQ(number(*backend, FieldId::TemperatureMemoryMaxOperating), 95);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::PowerDraw), 350.5);  // µW -> W
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::PowerDrawAverage), 350.5);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::PowerLimit), 750.0);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::EnforcedPowerLimit), 750.0);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::PowerMaxLimit), 750.0);
  EXPECT_EQ(number(*backend, FieldId::ClocksCurrentSm), 1.5e9);  // the '*' level, MHz -> Hz
  EXPECT_EQ(number(*backend, FieldId::ClocksCurrentGraphics), 1.5e9);
  EXPECT_EQ(number(*backend, FieldId::ClocksCurrentMemory), 1.3e9);
  EXPECT_EQ(number(*backend, FieldId::ClocksMaxSm), 2.1e9);
  EXPECT_EQ(number(*backend, FieldId::ClocksMaxMemory), 1.3e9);
  EXPECT_EQ(number(*backend, FieldId::PcieLinkGenCurrent), 5);
  EXPECT_EQ(number(*backend, FieldId::PcieLinkGenMax), 5);
  EXPECT_EQ(number(*backend, FieldId::PcieLinkWidthCurrent), 16);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::FanSpeed), 153.0 / 255.0);
  EXPECT_DOUBLE_EQ(number(*backend, FieldId::EnergyTotal), 1234.5);  // µJ -> J
  EXPECT_EQ(number(*backend, FieldId::EccErrorsUncorrectedVolatileTotal), 1);  // umc 1 + gfx 0
  EXPECT_EQ(number(*backend, FieldId::EccErrorsCorrectedVolatileTotal), 7);    // umc 5 + gfx 2
  EXPECT_EQ(number(*backend, FieldId::EccErrorsCorrectedVolatileDram), 5);     // umc only
  EXPECT_EQ(number(*backend, FieldId::MinorNumber), 0);
}

TEST(AmdBackend, ThrottleBitsBecomeNvmlClockEventReasons) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");  // hotspot temperature + PPT0 limits
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsActive).as_uint(), 0x20u | 0x4u);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsSwThermalSlowdown).as_bool(), true);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsSwPowerCap).as_bool(), true);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsHwThermalSlowdown).as_bool(), false);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsSupported).as_uint(), 0x4u | 0x8u | 0x20u | 0x40u);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsGpuIdle).status, FieldStatus::NotSupported);
  tree.write_metrics(0, 0);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsActive).as_uint(), 0u);
  EXPECT_EQ(read(*backend, FieldId::ClocksEventReasonsSwThermalSlowdown).as_bool(), false);
}

TEST(AmdBackend, WhatAmdgpuCannotGiveIsAbsentNeverZero) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  for (FieldId f : {FieldId::Pstate, FieldId::UtilizationEncoder, FieldId::EccErrorsCorrectedAggregateTotal,
                    FieldId::EccErrorsCorrectedVolatileL1Cache, FieldId::ClocksCurrentVideo, FieldId::MemoryReserved,
                    FieldId::ComputeCap, FieldId::PowerDrawInstant, FieldId::PersistenceMode}) {
    const auto r = read(*backend, f);
    EXPECT_EQ(r.status, FieldStatus::NotSupported) << core::field_info(f).name;
    EXPECT_FALSE(r.value.has_value()) << core::field_info(f).name;
    EXPECT_EQ(core::vendor_of_code(r.vendor_code), core::Vendor::Amd) << core::field_info(f).name;
  }
  EXPECT_EQ(backend->error_text(read(*backend, FieldId::Pstate).error()), "Not Supported");
  int cuda = 0;
  EXPECT_EQ(backend->cuda_driver_version(&cuda).reason, core::ErrorReason::NotSupported);
}

TEST(AmdBackend, AMissingOrUnreadableFileFailsOnlyItsField) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  tree.remove(FakeAmdTree::hwmon(0) + "pwm1");
  tree.remove(FakeAmdTree::device(0) + "gpu_busy_percent");
  tree.write(FakeAmdTree::device(0) + "gpu_busy_percent/x", "");  // a folder: reading it fails (EISDIR)
  tree.remove(FakeAmdTree::hwmon(0) + "temp1_input");              // no edge sensor (as MI300X)
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  const auto fan = read(*backend, FieldId::FanSpeed);
  EXPECT_EQ(fan.status, FieldStatus::NotSupported);  // no such file on this board: "[N/A]"
  EXPECT_EQ(backend->error_text(fan.error()), "No such file");
  const auto util = read(*backend, FieldId::UtilizationGpu);
  EXPECT_EQ(util.status, FieldStatus::Failed);  // transient: retried next sample
  EXPECT_FALSE(util.value.has_value());
  backend::DeviceHandle dev;
  ASSERT_TRUE(backend->handle_by_index(0, &dev).ok());
  core::DeviceSnapshot device;
  const FieldId both[] = {FieldId::UtilizationGpu, FieldId::UtilizationMemory};
  EXPECT_FALSE(backend->read_source(dev, core::Source::UtilizationRates, both, device).ok());
  EXPECT_EQ(device.get(FieldId::UtilizationGpu).status, FieldStatus::Failed);
  EXPECT_DOUBLE_EQ(device.get(FieldId::UtilizationMemory).as_double().value_or(-1), 0.17);  // its neighbour reads
  EXPECT_EQ(number(*backend, FieldId::TemperatureGpu), 71);  // no edge: the junction sensor
}

TEST(AmdBackend, AGoneCardIsALostGpu) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  tree.remove("sys/class/drm/card0");
  backend::DeviceHandle dev;
  ASSERT_TRUE(backend->handle_by_index(0, &dev).ok());
  core::DeviceSnapshot device;
  const FieldId fields[] = {FieldId::UtilizationGpu};
  EXPECT_EQ(backend->read_source(dev, core::Source::UtilizationRates, fields, device).reason, core::ErrorReason::GpuLost);
  EXPECT_EQ(backend->last_error().reason, core::ErrorReason::GpuLost);
}

TEST(AmdBackend, DiscoversAmdgpuCardsOnlyInCardOrder) {
  FakeAmdTree tree;
  tree.add_amd_card(2, "0000:c2:00.0");
  tree.add_amd_card(0, "0000:c1:00.0");
  tree.write("sys/class/drm/card1/device/uevent", "DRIVER=i915\nPCI_ID=8086:56A0\nPCI_SLOT_NAME=0000:03:00.0\n");
  tree.write("sys/class/drm/card0-DP-1/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
  tree.write("sys/class/drm/renderD128/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
  tree.remove(FakeAmdTree::device(2) + "product_name");
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  unsigned count = 0;
  ASSERT_TRUE(backend->device_count(&count).ok());
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(read(*backend, FieldId::PciBusId, 0).as_string(), "00000000:C1:00.0");
  EXPECT_EQ(read(*backend, FieldId::PciBusId, 1).as_string(), "00000000:C2:00.0");
  EXPECT_EQ(read(*backend, FieldId::MinorNumber, 1).as_uint(), 2u);
  EXPECT_EQ(read(*backend, FieldId::Index, 1).as_uint(), 5u);  // the sampler's global index
  EXPECT_EQ(read(*backend, FieldId::Name, 1).as_string(), "AMD GPU [1002:74a1]");  // no product_name
  backend::DeviceHandle dev;
  EXPECT_EQ(backend->handle_by_index(2, &dev).reason, core::ErrorReason::NotFound);
}

TEST(AmdBackend, OpenFailsClearlyWithoutAnAmdGpu) {
  FakeAmdTree tree;
  tree.write("sys/class/drm/card0/device/uevent", "DRIVER=i915\nPCI_SLOT_NAME=0000:03:00.0\n");
  backend::OpenOptions options;
  options.host_root = tree.root();
  const auto opened = open_backend(options);
  ASSERT_FALSE(opened);
  EXPECT_NE(opened.error().message.find("no AMD GPU"), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find(tree.root() + "/sys/class/drm"), std::string::npos);
}

TEST(AmdBackend, DriverVersionIsTheModulesElseTheKernels) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  auto backend = open_over(tree);
  ASSERT_TRUE(backend);
  std::string version;
  EXPECT_FALSE(backend->driver_version(version).ok());  // neither file: absent
  tree.write("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
  ASSERT_TRUE(backend->driver_version(version).ok());
  EXPECT_EQ(version, "6.8.0-45-generic");
  tree.write("sys/module/amdgpu/version", "6.7.0\n");
  ASSERT_TRUE(backend->driver_version(version).ok());
  EXPECT_EQ(version, "6.7.0");
}

TEST(AmdBackend, ForwardsTheSimulatorsClockAndRefreshesBeforeEachRead) {
  FakeAmdTree tree;
  tree.add_amd_card(0, "0000:c1:00.0");
  auto sim = std::make_shared<CountingTree>();
  auto backend = open_over(tree, sim);
  ASSERT_TRUE(backend);
  EXPECT_TRUE(backend->has_sim_clock());
  EXPECT_EQ(backend->sim_time_scale(), 2.0);
  const int before = sim->refreshes.load();
  EXPECT_GE(before, 1);  // at open, before discovery
  static_cast<void>(read(*backend, FieldId::UtilizationGpu));
  EXPECT_EQ(sim->refreshes.load(), before + 1);
  EXPECT_TRUE(backend->set_sim_clock(1700000000000));
  EXPECT_EQ(sim->clock_ms.load(), 1700000000000);
  auto real = open_over(tree);
  ASSERT_TRUE(real);
  EXPECT_FALSE(real->has_sim_clock());
  EXPECT_FALSE(real->set_sim_clock(1));
  EXPECT_EQ(real->sim_time_scale(), std::nullopt);
  auto events = real->open_events(1);
  backend::DeviceEvent event;
  EXPECT_EQ(events->wait(0, event), backend::EventSource::Wait::TimedOut);
  EXPECT_TRUE(events->watched_gpus().empty());
}

}  // namespace amd_backend_test
}  // namespace gpuwatch::amd
