#include "sampler/sampler.hpp"

#include <gtest/gtest.h>

#include "sampler/sanity_rules.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::sampler {
namespace {

using core::FieldId;
using core::FieldStatus;

SampleOptions fields(std::vector<FieldId> f) {
  SampleOptions o;
  o.fields = std::move(f);
  return o;
}

// issue 3: one unsupported field never spoils a GPU's row (cosmic-monitor#83).
TEST(Sampler, OneFailingFieldDoesNotSpoilTheRow) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].power_rc = NVML_ERROR_NOT_SUPPORTED;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto snap = sample(api, fields({FieldId::PowerDraw, FieldId::TemperatureGpu, FieldId::Name}));
  ASSERT_EQ(snap.devices.size(), 1u);
  EXPECT_EQ(snap.devices[0].get(FieldId::PowerDraw).status, FieldStatus::NotSupported);
  EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
  EXPECT_EQ(snap.devices[0].get(FieldId::Name).as_string(), "Fake GPU");
}

TEST(Sampler, ALostGpuDoesNotSpoilTheOthers) {
  testing::FakeNvml fake;
  fake.devices.resize(3);
  fake.devices[1].handle_rc = NVML_ERROR_GPU_IS_LOST;
  fake.devices[2].temperature_rc = NVML_ERROR_GPU_IS_LOST;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto snap = sample(api, fields({FieldId::TemperatureGpu, FieldId::Name, FieldId::Count}));
  ASSERT_EQ(snap.devices.size(), 3u);
  EXPECT_EQ(snap.devices[0].state, core::DeviceState::Ok);
  EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
  EXPECT_EQ(snap.devices[1].state, core::DeviceState::Lost);
  EXPECT_EQ(snap.devices[1].get(FieldId::Name).status, FieldStatus::Failed);
  EXPECT_EQ(snap.devices[1].get(FieldId::Count).as_uint(), 3u);  // system fields still there
  EXPECT_EQ(snap.devices[2].state, core::DeviceState::Lost);
  EXPECT_EQ(snap.error_string(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
}

TEST(Sampler, KeepsTheHandleOfTheLatestSampleForLaterReaders) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  fake.devices[1].handle_rc = NVML_ERROR_GPU_IS_LOST;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  Sampler sampler(api);
  EXPECT_FALSE(sampler.handle_of(0));  // never sampled
  SampleOptions options;
  options.fields = {FieldId::Name};
  core::Snapshot snap;
  sampler.sample_into(options, snap);
  nvmlDevice_t expected = nullptr;
  ASSERT_EQ(api.api().handle_by_index(0, &expected), NVML_SUCCESS);
  EXPECT_EQ(nvml::NvmlBackend::nvml_device(sampler.handle_of(0)), expected);
  EXPECT_EQ(sampler.handle_of(0).owner, &api);
  EXPECT_FALSE(sampler.handle_of(1));  // its handle call failed: none
  EXPECT_FALSE(sampler.handle_of(7));  // no such device
}

TEST(Sampler, NotSupportedIsCachedButTransientErrorsAreRetried) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].temperature_rc = NVML_ERROR_TIMEOUT;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  Sampler sampler(api);
  auto opts = fields({FieldId::FanSpeed, FieldId::TemperatureGpu});
  for (int i = 0; i < 3; ++i) {
    auto snap = sampler.sample(opts);
    EXPECT_EQ(snap.devices[0].get(FieldId::FanSpeed).status, FieldStatus::NotSupported);
    EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).status, FieldStatus::Failed);
  }
  EXPECT_EQ(fake.calls["nvmlDeviceGetFanSpeed"], 1);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 3);
  EXPECT_EQ(sampler.cached_unsupported_count(), 1u);
  fake.devices[0].temperature_rc = NVML_SUCCESS;  // recovers next tick
  EXPECT_EQ(sampler.sample(opts).devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
}

TEST(Sampler, ReadsOnlyWhatIsAskedAndOnlyTheAskedDevices) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto opts = fields({FieldId::PowerDraw});
  opts.devices = {1};
  auto snap = sample(api, opts);
  ASSERT_EQ(snap.devices.size(), 1u);
  EXPECT_EQ(snap.devices[0].index, 1u);
  EXPECT_EQ(fake.calls["nvmlDeviceGetPowerUsage"], 1);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 0);
  EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).status, FieldStatus::NotRead);
}

TEST(Sampler, UnclaimedFieldsAreNotSupportedWithoutCallingNvml) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto snap = sample(api, fields({FieldId::Hostname}));
  EXPECT_EQ(snap.devices[0].get(FieldId::Hostname).status, FieldStatus::NotSupported);
}

// STYLE rule 8: a lost GPU is re-tried on a back-off schedule, not hammered every tick.
TEST(Sampler, LostGpuIsRetriedOnlyAfterItsBackoff) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  fake.devices[1].temperature_rc = NVML_ERROR_GPU_IS_LOST;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto t = std::chrono::steady_clock::time_point{};
  Sampler sampler(api, [&t] { return t; });
  auto opts = fields({FieldId::TemperatureGpu});
  EXPECT_EQ(sampler.sample(opts).devices[1].state, core::DeviceState::Lost);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 2);
  t += std::chrono::milliseconds(500);  // within the first 1 s back-off: GPU 1 is not called
  auto snap = sampler.sample(opts);
  EXPECT_EQ(snap.devices[1].state, core::DeviceState::Lost);
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).vendor_code, NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(snap.devices[1].get(FieldId::TemperatureGpu).reason, core::ErrorReason::GpuLost);
  EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 3);
  t += std::chrono::seconds(1);  // back-off over: asked again, still lost -> 2 s
  sampler.sample(opts);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 5);
  t += std::chrono::milliseconds(1500);
  sampler.sample(opts);
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 6);
  fake.devices[1].temperature_rc = NVML_SUCCESS;  // the GPU comes back after a reset
  t += std::chrono::seconds(1);
  EXPECT_EQ(sampler.sample(opts).devices[1].state, core::DeviceState::Ok);
  t += std::chrono::milliseconds(1);
  EXPECT_EQ(sampler.sample(opts).devices[1].get(FieldId::TemperatureGpu).as_int(), 42);
}

// Per-process utilization asks only for samples newer than the last one seen (nvml.md 6.7).
TEST(Sampler, ProcessUtilizationAdvancesLastSeenTimestamp) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].compute = {{77, 1ull << 30, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  auto fns = testing::make_fake_functions(fake);
  static std::vector<unsigned long long> asked;
  asked.clear();
  fns.nvmlDeviceGetProcessUtilization = [](nvmlDevice_t, nvmlProcessUtilizationSample_t* out, unsigned* n,
                                           unsigned long long last_seen) {
    asked.push_back(last_seen);
    if (out == nullptr) {
      *n = 2;
      return nvmlReturn_t{NVML_ERROR_INSUFFICIENT_SIZE};
    }
    out[0] = {77, last_seen + 10, 50, 20, 0, 0};
    out[1] = {77, last_seen + 5, 250, 0, 0, 0};  // garbage (> 100 %) is dropped
    *n = 2;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  nvml::NvmlBackend api(fns);
  Sampler sampler(api);
  SampleOptions opts = fields({FieldId::Name});
  opts.processes = true;
  opts.process_utilization = true;
  auto snap = sampler.sample(opts);
  ASSERT_EQ(snap.devices[0].processes.size(), 1u);
  EXPECT_DOUBLE_EQ(*snap.devices[0].processes[0].sm_ratio, 0.5);
  EXPECT_DOUBLE_EQ(*snap.devices[0].processes[0].memory_ratio, 0.2);
  sampler.sample(opts);
  EXPECT_EQ(asked, (std::vector<unsigned long long>{0, 0, 10, 10}));
}

TEST(SanityRules, ZeroTotalMemoryMakesMemoryFieldsNotApplicable) {
  core::DeviceSnapshot d;
  d.get(FieldId::MemoryTotal) = core::FieldReading::of(std::uint64_t{0});
  d.get(FieldId::MemoryUsed) = core::FieldReading::of(std::uint64_t{5});
  apply_sanity_rules(d);
  EXPECT_EQ(d.get(FieldId::MemoryTotal).status, FieldStatus::NotApplicable);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).status, FieldStatus::NotApplicable);
}

TEST(SanityRules, ProcessMemoryAboveTotalIsUnknown) {
  core::DeviceSnapshot d;
  d.get(FieldId::MemoryTotal) = core::FieldReading::of(std::uint64_t{100});
  d.get(FieldId::MemoryUsed) = core::FieldReading::of(std::uint64_t{200});
  d.processes.push_back(core::ProcessSample{});
  d.processes[0].used_memory_bytes = 1000;
  apply_sanity_rules(d);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).status, FieldStatus::NotApplicable);
  EXPECT_FALSE(d.processes[0].used_memory_bytes.has_value());
}

}  // namespace
}  // namespace gpuwatch::sampler

namespace gpuwatch::sampler {
namespace {

nvmlReturn_t fake_driver_version(char* buf, unsigned len) {
  if (len < 10) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::strcpy(buf, "550.54.15");
  return NVML_SUCCESS;
}

// issue 3: status shows the CUDA version; _v2 first, the plain symbol on old drivers.
TEST(Sampler, CudaDriverVersionComesWithTheDriverVersion) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  auto functions = testing::make_fake_functions(fake);
  functions.nvmlSystemGetDriverVersion = &fake_driver_version;
  functions.nvmlSystemGetCudaDriverVersion = [](int* v) { *v = 11040; return nvmlReturn_t{NVML_SUCCESS}; };
  {
    nvml::NvmlBackend old_driver(functions);  // no _v2: the plain symbol answers
    auto snap = sample(old_driver, fields({FieldId::DriverVersion, FieldId::Name}));
    EXPECT_EQ(snap.driver_version, "550.54.15");
    EXPECT_EQ(snap.cuda_driver_version, 11040);
    auto without = sample(old_driver, fields({FieldId::Name}));  // not asked: not read
    EXPECT_FALSE(without.cuda_driver_version.has_value());
  }
  functions.nvmlSystemGetCudaDriverVersion_v2 = [](int* v) { *v = 12040; return nvmlReturn_t{NVML_SUCCESS}; };
  {
    nvml::NvmlBackend api(functions);
    Sampler sampler(api);
    EXPECT_EQ(sampler.sample(fields({FieldId::DriverVersion})).cuda_driver_version, 12040);
    EXPECT_EQ(sampler.sample(fields({FieldId::DriverVersion})).cuda_driver_version, 12040);
  }
  functions.nvmlSystemGetCudaDriverVersion_v2 = [](int*) { return nvmlReturn_t{NVML_ERROR_UNKNOWN}; };
  functions.nvmlSystemGetCudaDriverVersion = nullptr;
  {
    nvml::NvmlBackend failing(functions);  // absent, never zero
    auto snap = sample(failing, fields({FieldId::DriverVersion}));
    EXPECT_EQ(snap.driver_version, "550.54.15");
    EXPECT_FALSE(snap.cuda_driver_version.has_value());
  }
}

}  // namespace
}  // namespace gpuwatch::sampler
