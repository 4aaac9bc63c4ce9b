#include "exporter/dcgm_compat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "core/field_table.hpp"

namespace gpuwatch::exporter {
namespace dcgm_compat_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::Snapshot one_gpu() {
  core::Snapshot snap;
  snap.driver_version = "535.261.03";
  snap.device_count = 1;
  core::DeviceSnapshot d;
  d.index = 0;
  d.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-a"));
  d.get(FieldId::Name) = FieldReading::of(std::string("NVIDIA A100-SXM4-80GB"));
  d.get(FieldId::PciBusId) = FieldReading::of(std::string("00000000:18:00.0"));
  d.get(FieldId::MinorNumber) = FieldReading::of(std::int64_t{3});
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.93);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{61440} * 1048576);
  d.get(FieldId::ClocksCurrentSm) = FieldReading::of(std::uint64_t{1410000000});
  d.get(FieldId::EnergyTotal) = FieldReading::of(35757.6);
  d.get(FieldId::TemperatureMemory) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  snap.devices.push_back(d);
  return snap;
}

TEST(DcgmCompat, NamesUnitsAndLabelsAsDcgmExporter) {
  core::Snapshot snap = one_gpu();
  live::LiveView view{&snap, {live::DeviceStatus{true, true, 0.1, 0.01}}, {}, {}, true};
  EncodeOptions options;
  options.compat_dcgm = true;
  options.hostname = "node1";
  std::string text = encode_prometheus(view, options);
  const std::string labels =
      "{gpu=\"0\",UUID=\"GPU-a\",device=\"nvidia3\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node1\","
      "pci_bus_id=\"00000000:18:00.0\",DCGM_FI_DRIVER_VERSION=\"535.261.03\"}";
  EXPECT_NE(text.find("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
                      "DCGM_FI_DEV_GPU_UTIL" + labels + " 93\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED" + labels + " 61440\n"), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_SM_CLOCK" + labels + " 1410\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" +
                      labels + " 35757600\n"),
            std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_MEMORY_TEMP"), std::string::npos);  // unsupported: no series
  EXPECT_NE(text.find("gpuwatch_utilization_gpu_ratio{"), std::string::npos);  // native names stay
}

TEST(DcgmCompat, OffByDefaultAndNothingForAGpuThatIsDown) {
  core::Snapshot snap = one_gpu();
  live::LiveView view{&snap, {live::DeviceStatus{true, true, 0.1, 0.01}}, {}, {}, true};
  EXPECT_EQ(encode_prometheus(view, {}).find("DCGM_FI_"), std::string::npos);
  view.status[0].up = false;
  EncodeOptions options;
  options.compat_dcgm = true;
  EXPECT_EQ(encode_prometheus(view, options).find("DCGM_FI_DEV"), std::string::npos);
}

TEST(DcgmCompat, EveryMappedFieldIsSampled) {
  auto fields = exported_fields();
  std::set<std::string_view> names;
  for (const auto& m : dcgm_metrics()) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), m.field), fields.end()) << m.name;
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_EQ(m.name.rfind("DCGM_FI_", 0), 0U);
  }
  EXPECT_NE(std::find(fields.begin(), fields.end(), FieldId::MinorNumber), fields.end());
}

}  // namespace dcgm_compat_test
}  // namespace gpuwatch::exporter
