// Scenario parsing: built-ins, defaults from the catalog, and errors that name file, line and key.
#include <gtest/gtest.h>

#include "sim/engine/catalog.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::sim {
namespace scenario_parser_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Result<Scenario> parse(const std::string& yaml) { return parse_scenario(yaml, "test.yaml", ""); }

TEST(ScenarioParser, EveryBuiltinLoadsAndHasADescription) {
  auto names = builtin_scenario_names();
  for (const char* required : {"idle", "training", "dataloader_starvation", "small_kernels", "memory_bound", "memory_leak",
                               "fragmentation", "hung_job", "thermal_runaway", "power_capping", "uneven_load", "gpu_lost",
                               "ecc_errors", "mig", "consumer_card", "old_driver", "no_gpus", "demo", "sick_gpu", "host_cpu_bound",
                               "host_io_bound", "host_comm_bound", "host_kernel_bound", "host_swapping"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  }
  for (const auto& name : names) {
    auto sc = load_scenario(name);
    ASSERT_TRUE(sc) << name << ": " << sc.error().message;
    EXPECT_FALSE(sc->description.empty()) << name;
    EXPECT_EQ(sc->description.find('\n'), std::string::npos) << name;
  }
}

TEST(ScenarioParser, DemoIsAnEightGpuH100Node) {
  auto sc = load_scenario("demo");
  ASSERT_TRUE(sc);
  ASSERT_EQ(sc->gpus.size(), 8u);
  for (const auto& g : sc->gpus) EXPECT_EQ(g.values[key_index(Key::Name)].text, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(sc->gpus[3].phases[1].kind, PhaseKind::ThermalRunaway);
  EXPECT_EQ(sc->gpus[6].phases[1].kind, PhaseKind::MemoryLeak);
}

TEST(ScenarioParser, CatalogDefaultsAndOverrides) {
  auto sc = parse("gpus:\n  - model: RTX 4090\n    values:\n      power.limit: 400.00\n      vbios_version: \"95.02.18.80.87\"\n");
  ASSERT_TRUE(sc) << sc.error().message;
  const auto& v = sc->gpus[0].values;
  EXPECT_EQ(v[key_index(Key::Name)].text, "NVIDIA GeForce RTX 4090");
  EXPECT_DOUBLE_EQ(v[key_index(Key::PowerLimit)].number, 400.0);
  EXPECT_TRUE(v[key_index(Key::Serial)].is_error());       // GeForce: no serial
  EXPECT_EQ(v[key_index(Key::Serial)].error, 3);
  EXPECT_TRUE(v[key_index(Key::FanSpeed)].is_number());    // has a fan
  EXPECT_TRUE(v[key_index(Key::ClocksApplicationsGraphics)].is_error());
  EXPECT_DOUBLE_EQ(v[key_index(Key::MemoryTotal)].number, 24564);
  EXPECT_EQ(v[key_index(Key::Count)].text, "1");
}

TEST(ScenarioParser, DataCenterBoardsHaveNoFan) {
  for (const char* model : {"H100 SXM 80GB", "H200", "A100 SXM 80GB", "A100 PCIe 40GB", "L4", "T4", "V100"}) {
    const ModelSpec* m = find_model(model);
    ASSERT_NE(m, nullptr) << model;
    auto v = model_defaults(*m, 0, 1);
    EXPECT_TRUE(v[key_index(Key::FanSpeed)].is_error()) << model;
    EXPECT_GT(v[key_index(Key::MemoryTotal)].number, 0) << model;
  }
}

TEST(ScenarioParser, BracketedErrorTextsBecomeNvmlCodes) {
  auto sc = parse("gpus:\n  - model: h100\n    values:\n      display_mode: \"[Requested functionality has been deprecated]\"\n"
                  "      power.draw: \"[N/A]\"\n      temperature.gpu: \"[GPU is lost]\"\n");
  ASSERT_TRUE(sc) << sc.error().message;
  const auto& v = sc->gpus[0].values;
  EXPECT_EQ(v[key_index(Key::DisplayMode)].error, 26);
  EXPECT_EQ(v[key_index(Key::PowerDraw)].error, 3);
  EXPECT_EQ(v[key_index(Key::TemperatureGpu)].error, 15);
}

TEST(ScenarioParser, UnknownModelNamesFileLineKeyAndListsTheCatalog) {
  auto sc = parse("description: x\ngpus:\n  - model: GTX 480\n");
  ASSERT_FALSE(sc);
  const auto& msg = sc.error().message;
  EXPECT_NE(msg.find("test.yaml:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'model'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GTX 480"), std::string::npos) << msg;
  EXPECT_NE(msg.find("H100 SXM 80GB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("RTX 3090"), std::string::npos) << msg;
}

TEST(ScenarioParser, UnknownQueryKeyIsAnErrorWithItsLine) {
  auto sc = parse("gpus:\n  - model: T4\n    values:\n      power.drawn: 10\n");
  ASSERT_FALSE(sc);
  EXPECT_NE(sc.error().message.find("test.yaml:4: key 'power.drawn'"), std::string::npos) << sc.error().message;
}

TEST(ScenarioParser, UnknownTopLevelKeyAndBadNumbers) {
  auto a = parse("gpu: []\n");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("test.yaml:1: key 'gpu'"), std::string::npos) << a.error().message;
  auto b = parse("gpus:\n  - model: T4\n    values:\n      power.draw: hot\n");
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("test.yaml:4: key 'power.draw'"), std::string::npos) << b.error().message;
  auto c = parse("gpus:\n  - model: T4\n    phases:\n      - {kind: sleeping}\n");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("test.yaml:4"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("sleeping"), std::string::npos);
  auto d = parse("faults:\n  - {function: nvmlDeviceGetPowerUsag, error: 3}\n");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("key 'function'"), std::string::npos) << d.error().message;
}

TEST(ScenarioParser, MalformedYamlNamesTheLine) {
  auto sc = parse("gpus:\n  - model: T4\n   values: [\n");
  ASSERT_FALSE(sc);
  EXPECT_NE(sc.error().message.find("test.yaml:"), std::string::npos);
  EXPECT_NE(sc.error().message.find("malformed YAML"), std::string::npos) << sc.error().message;
}

TEST(ScenarioParser, FaultsDurationsAndDriver) {
  auto sc = parse("driver: {version: \"470.57.02\", cuda_version: 11.4, symbols: legacy}\n"
                  "gpus:\n  - model: a100\n    count: 2\n"
                  "faults:\n  - {function: nvmlDeviceGetPowerUsage, gpu: 1, from: 2m, error: GPU_IS_LOST}\n"
                  "  - {function: nvmlDeviceGetTemperature, delay_ms: 5}\n");
  ASSERT_TRUE(sc) << sc.error().message;
  EXPECT_EQ(sc->gpus.size(), 2u);
  EXPECT_EQ(sc->driver.cuda_version, 11040);
  EXPECT_TRUE(sc->driver.legacy_symbols);
  ASSERT_EQ(sc->faults.size(), 2u);
  EXPECT_EQ(sc->faults[0].gpu, 1);
  EXPECT_DOUBLE_EQ(sc->faults[0].from_s, 120);
  EXPECT_EQ(sc->faults[0].error, 15);
  EXPECT_DOUBLE_EQ(sc->faults[1].delay_ms, 5);
}

TEST(ScenarioParser, MigOnlyOnMigCapableModels) {
  auto bad = parse("gpus:\n  - model: L4\n    mig: [{profile: 1g.5gb}]\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("key 'mig'"), std::string::npos) << bad.error().message;
  auto sc = load_scenario("mig");
  ASSERT_TRUE(sc);
  EXPECT_EQ(sc->gpus[0].values[key_index(Key::MigModeCurrent)].text, "Enabled");
  EXPECT_TRUE(sc->gpus[0].values[key_index(Key::UtilizationGpu)].is_error());
}

TEST(SimApi, ListValidateDescribeAndStandins) {
  auto list = list_builtin_scenarios();
  EXPECT_GE(list.size(), 19u);
  EXPECT_TRUE(validate_scenario("demo"));
  auto missing = validate_scenario("/nonexistent/x.yaml");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("built-ins:"), std::string::npos);
  auto text = describe_scenario("demo");
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("thermal_runaway"), std::string::npos);
  EXPECT_NE(text->find("GPU 7"), std::string::npos);
  auto standins = standin_processes("demo");
  ASSERT_TRUE(standins);
  ASSERT_EQ(standins->size(), 9u);  // one per GPU, two on GPU 7
  EXPECT_EQ((*standins)[0].argv.front(), "python");
  EXPECT_EQ((*standins)[8].gpu, 7);
  EXPECT_EQ((*standins)[8].process, 1);
  std::vector<int> pids;
  for (std::size_t i = 0; i < standins->size(); ++i) pids.push_back(1000 + static_cast<int>(i));
  std::string env = standin_pid_env(*standins, pids);
  EXPECT_EQ(env.substr(0, 14), "0:0=1000,1:0=1");
  EXPECT_NE(env.find("7:1=1008"), std::string::npos);
  auto legacy = needs_legacy_driver("old_driver");
  ASSERT_TRUE(legacy);
  EXPECT_TRUE(*legacy);
  EXPECT_FALSE(*needs_legacy_driver("demo"));
}

}  // namespace scenario_parser_test
}  // namespace gpuwatch::sim
