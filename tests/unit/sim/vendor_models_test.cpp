// AMD and Intel GPUs in scenarios (issue 28): the `vendor:` key, the catalog's AMD and Intel
// models, gpus_of_vendor, the per-vendor numbering and the vendor scenarios' stories.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/engine/catalog.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {
namespace vendor_models_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Result<Scenario> parse(const std::string& yaml) { return parse_scenario(yaml, "test.yaml", ""); }

const Value& value(const Scenario& sc, unsigned gpu, Key key) { return sc.gpus[gpu].values[key_index(key)]; }

TEST(SimVendors, VendorComesFromTheModelOrTheVendorKey) {
  auto sc = parse(
      "gpus:\n  - model: H100\n  - model: mi300x\n  - model: Max 1550\n  - model: MI250X\n    vendor: amd\n"
      "  - vendor: intel\n  - model: a770\n    vendor: intel\n");
  ASSERT_TRUE(sc) << sc.error().message;
  ASSERT_EQ(sc->gpus.size(), 6u);
  EXPECT_EQ(sc->gpus[0].vendor, core::Vendor::Nvidia);
  EXPECT_EQ(sc->gpus[1].vendor, core::Vendor::Amd);
  EXPECT_EQ(sc->gpus[1].model, "MI300X");
  EXPECT_EQ(sc->gpus[2].vendor, core::Vendor::Intel);
  EXPECT_EQ(sc->gpus[3].vendor, core::Vendor::Amd);
  // No model: the vendor's generic GPU (its identity says whose it is).
  EXPECT_EQ(sc->gpus[4].vendor, core::Vendor::Intel);
  EXPECT_EQ(value(*sc, 4, Key::Name).text, "Intel Simulated GPU");
  EXPECT_EQ(value(*sc, 4, Key::PciDeviceId).text.substr(6), "8086");
  EXPECT_EQ(sc->gpus[5].model, "Arc A770");
}

TEST(SimVendors, BadVendorNamesFileLineAndKey) {
  auto bad = parse("gpus:\n  - model: MI300X\n    vendor: radeon\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("test.yaml:3: key 'vendor'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("nvidia, amd or intel"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("radeon"), std::string::npos) << bad.error().message;
  // A vendor that contradicts the model is an error too.
  auto mismatch = parse("gpus:\n  - model: H100\n    vendor: amd\n");
  ASSERT_FALSE(mismatch);
  EXPECT_NE(mismatch.error().message.find("test.yaml:3: key 'vendor'"), std::string::npos) << mismatch.error().message;
  EXPECT_NE(mismatch.error().message.find("nvidia GPU"), std::string::npos) << mismatch.error().message;
  auto not_scalar = parse("gpus:\n  - model: MI300X\n    vendor: [amd]\n");
  ASSERT_FALSE(not_scalar);
  EXPECT_NE(not_scalar.error().message.find("key 'vendor'"), std::string::npos);
}

TEST(SimVendors, CatalogHasTheFiveModelsWithTheirFigures) {
  struct Expect {
    const char* alias;
    const char* name;
    core::Vendor vendor;
    const char* pci;
    double memory_mib, power_w;
    bool fan;
  };
  const Expect kExpected[] = {
      {"mi300x", "AMD Instinct MI300X", core::Vendor::Amd, "0x74A11002", 196592, 750, false},
      {"mi250x", "AMD Instinct MI250X", core::Vendor::Amd, "0x740C1002", 65520, 500, false},
      {"rx7900xtx", "AMD Radeon RX 7900 XTX", core::Vendor::Amd, "0x744C1002", 24560, 355, true},
      {"max1550", "Intel(R) Data Center GPU Max 1550", core::Vendor::Intel, "0x0BD58086", 131072, 600, false},
      {"a770", "Intel(R) Arc(TM) A770 Graphics", core::Vendor::Intel, "0x56A08086", 16256, 225, true},
  };
  for (const auto& e : kExpected) {
    const ModelSpec* m = find_model(e.alias);
    ASSERT_NE(m, nullptr) << e.alias;
    EXPECT_EQ(m->vendor, e.vendor) << e.alias;
    ValueMap v = model_defaults(*m, 0, 1);
    EXPECT_EQ(v[key_index(Key::Name)].text, e.name);
    EXPECT_EQ(v[key_index(Key::PciDeviceId)].text, e.pci) << e.alias;
    EXPECT_DOUBLE_EQ(v[key_index(Key::MemoryTotal)].number, e.memory_mib) << e.alias;
    EXPECT_DOUBLE_EQ(v[key_index(Key::PowerLimit)].number, e.power_w) << e.alias;
    EXPECT_EQ(v[key_index(Key::FanSpeed)].is_number(), e.fan) << e.alias;
    // What the tree writer reads is there ...
    for (Key k : {Key::UtilizationGpu, Key::MemoryUsed, Key::TemperatureGpu, Key::PowerDraw, Key::ClocksCurrentSm,
                  Key::ClocksMaxSm, Key::ClocksCurrentMemory, Key::ClocksMaxMemory, Key::PcieLinkGenMax,
                  Key::PcieLinkWidthMax, Key::EnergyTotal, Key::TemperatureGpuSlowdown})
      EXPECT_TRUE(v[key_index(k)].is_number()) << e.alias << " " << key_info(k).name;
    // ... amdgpu counts its own VRAM in memory.used, nothing is reserved beside it ...
    EXPECT_DOUBLE_EQ(v[key_index(Key::MemoryReserved)].number, 0) << e.alias;
    EXPECT_DOUBLE_EQ(v[key_index(Key::MemoryFree)].number,
                     e.memory_mib - v[key_index(Key::MemoryUsed)].number) << e.alias;
    // ... and what only NVIDIA's driver has is [N/A].
    for (Key k : {Key::ComputeCap, Key::Bar1Total, Key::InforomImg, Key::GpuRecoveryAction, Key::ClocksMaxVideo,
                  Key::MigModeCurrent, Key::FabricState})
      EXPECT_TRUE(v[key_index(k)].is_error()) << e.alias << " " << key_info(k).name;
  }
  EXPECT_EQ(model_defaults(*find_model("mi300x"), 0, 1)[key_index(Key::Uuid)].text.substr(0, 4), "AMD-");
  EXPECT_EQ(model_defaults(*find_model("mi300x"), 0, 1)[key_index(Key::Uuid)].text.size(), 20u);  // AMD- + 16 hex
  // HBM boards report a memory temperature and ECC; the consumer cards neither.
  EXPECT_TRUE(model_defaults(*find_model("max1550"), 0, 1)[key_index(Key::TemperatureMemory)].is_number());
  EXPECT_TRUE(model_defaults(*find_model("a770"), 0, 1)[key_index(Key::TemperatureMemory)].is_error());
  EXPECT_EQ(model_defaults(*find_model("mi300x"), 0, 1)[key_index(Key::EccModeCurrent)].text, "Enabled");
  EXPECT_EQ(catalog_names().find("MI300X") != std::string::npos, true);
}

TEST(SimVendors, GpusOfVendorOnDemoMixed) {
  auto sc = load_scenario("demo_mixed");
  ASSERT_TRUE(sc) << sc.error().message;
  ASSERT_EQ(sc->gpus.size(), 8u);
  EXPECT_EQ(gpus_of_vendor(*sc, core::Vendor::Nvidia), (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(gpus_of_vendor(*sc, core::Vendor::Amd), (std::vector<unsigned>{4, 5}));
  EXPECT_EQ(gpus_of_vendor(*sc, core::Vendor::Intel), (std::vector<unsigned>{6, 7}));
  EXPECT_EQ(vendor_index_of(*sc, core::Vendor::Amd, 5), 1u);
  EXPECT_EQ(vendor_index_of(*sc, core::Vendor::Intel, 6), 0u);
  EXPECT_FALSE(vendor_index_of(*sc, core::Vendor::Nvidia, 4));
  EXPECT_FALSE(vendor_index_of(*sc, core::Vendor::Amd, 99));
  // Each vendor's interface numbers its own GPUs: index, minor number and count per vendor.
  EXPECT_DOUBLE_EQ(value(*sc, 3, Key::Index).number, 3);
  EXPECT_DOUBLE_EQ(value(*sc, 3, Key::Count).number, 4);
  EXPECT_DOUBLE_EQ(value(*sc, 5, Key::Index).number, 1);
  EXPECT_DOUBLE_EQ(value(*sc, 5, Key::Count).number, 2);
  EXPECT_DOUBLE_EQ(value(*sc, 6, Key::MinorNumber).number, 0);
  EXPECT_EQ(value(*sc, 4, Key::Name).text, "AMD Instinct MI300X");
  EXPECT_EQ(value(*sc, 7, Key::Name).text, "Intel(R) Data Center GPU Max 1550");
  // No two GPUs share a PCI address (the trees and NVML match GPUs by it).
  std::vector<std::string> buses;
  for (unsigned g = 0; g < 8; ++g) buses.push_back(value(*sc, g, Key::PciBusId).text);
  std::sort(buses.begin(), buses.end());
  EXPECT_EQ(std::unique(buses.begin(), buses.end()), buses.end());
  auto vendors = scenario_vendors("demo_mixed");
  ASSERT_TRUE(vendors);
  EXPECT_TRUE(vendors->nvidia && vendors->amd && vendors->intel);
  auto only_nvidia = scenario_vendors("demo");
  ASSERT_TRUE(only_nvidia);
  EXPECT_TRUE(only_nvidia->nvidia && !only_nvidia->amd && !only_nvidia->intel);
}

TEST(SimVendors, DescribeNamesEachGpusVendorAndStandinsCoverEveryVendor) {
  auto text = describe_scenario("demo_mixed");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("8 GPU(s): 4 NVIDIA, 2 AMD, 2 Intel"), std::string::npos) << *text;
  EXPECT_NE(text->find("GPU 0: nvidia NVIDIA H100"), std::string::npos) << *text;
  EXPECT_NE(text->find("GPU 4: amd AMD Instinct MI300X"), std::string::npos) << *text;
  EXPECT_NE(text->find("GPU 7: intel Intel(R) Data Center GPU Max 1550"), std::string::npos) << *text;
  auto standins = standin_processes("demo_mixed");
  ASSERT_TRUE(standins);
  ASSERT_EQ(standins->size(), 8u);  // one process per GPU, AMD's and Intel's included
  EXPECT_EQ((*standins)[4].gpu, 4);
  EXPECT_EQ((*standins)[7].gpu, 7);
  EXPECT_EQ((*standins)[6].argv.front(), "python");
}

TEST(SimVendors, FaultsNameScenarioIndicesOfNvidiaGpusOnly) {
  auto ok = parse("gpus:\n  - model: MI300X\n  - model: H100\nfaults:\n  - {function: nvmlDeviceGetPowerUsage, gpu: 1, error: 15}\n");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->faults[0].gpu, 1);
  auto amd = parse("gpus:\n  - model: MI300X\n  - model: H100\nfaults:\n  - {function: nvmlDeviceGetPowerUsage, gpu: 0, error: 15}\n");
  ASSERT_FALSE(amd);
  EXPECT_NE(amd.error().message.find("key 'gpu'"), std::string::npos) << amd.error().message;
  EXPECT_NE(amd.error().message.find("AMD GPU"), std::string::npos) << amd.error().message;
}

double at(const Simulation& sim, unsigned gpu, double t, Key key) {
  DynamicSample s;
  sim.evaluate(gpu, t, s);
  EXPECT_TRUE(s.has.test(key_index(key))) << key_info(key).name << " at " << t;
  return s.num[key_index(key)];
}

TEST(SimVendors, AmdThermalThrottlesLikeNvidia) {
  auto sc = load_scenario("amd_thermal");
  ASSERT_TRUE(sc) << sc.error().message;
  ASSERT_EQ(sc->gpus.size(), 1u);
  EXPECT_EQ(sc->gpus[0].vendor, core::Vendor::Amd);
  const double slowdown = sc->gpus[0].values[key_index(Key::TemperatureGpuSlowdown)].number;
  const double gfx_max = sc->gpus[0].values[key_index(Key::ClocksMaxSm)].number;
  Simulation sim(std::move(*sc), {});
  // Training: no throttle bit, full clocks, well below the slowdown point.
  EXPECT_EQ(static_cast<std::uint64_t>(at(sim, 0, 50, Key::ClocksEventReasonsActive)) & 0x60u, 0u);
  EXPECT_LT(at(sim, 0, 50, Key::TemperatureGpu), slowdown - 10);
  // The end of the runaway: past slowdown, both thermal bits, the clock well down.
  const double end = 60 + 300;
  EXPECT_GE(at(sim, 0, end, Key::TemperatureGpu), slowdown);
  EXPECT_EQ(static_cast<std::uint64_t>(at(sim, 0, end, Key::ClocksEventReasonsActive)) & 0x60u, 0x60u);
  EXPECT_LT(at(sim, 0, end, Key::ClocksCurrentSm), gfx_max * 0.7);
  EXPECT_GT(at(sim, 0, end, Key::ClocksEventReasonsCountersHwThermalSlowdown), 0);
}

TEST(SimVendors, IntelLeakGrowsTheProcessToTheTotal) {
  auto sc = load_scenario("intel_leak");
  ASSERT_TRUE(sc) << sc.error().message;
  EXPECT_EQ(sc->gpus[0].vendor, core::Vendor::Intel);
  const double total = sc->gpus[0].values[key_index(Key::MemoryTotal)].number;
  PidSources pids;
  pids.standins[{0, 0}] = 4242;
  Simulation sim(std::move(*sc), pids);
  const double early = at(sim, 0, 40, Key::MemoryUsed);
  const double late = at(sim, 0, 30 + 295, Key::MemoryUsed);
  EXPECT_LT(early, total * 0.2);
  EXPECT_GT(late, total * 0.9);
  DynamicSample s;
  sim.evaluate(0, 30 + 295, s);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 4242u);
  EXPECT_GT(s.processes[0].memory_mib, total * 0.85);
}

}  // namespace vendor_models_test
}  // namespace gpuwatch::sim
