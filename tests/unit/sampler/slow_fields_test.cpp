// SampleOptions::slow_every: slow sources (identity, limits...) are read every Nth sample and
// keep their last readings in between; what is not settled is asked again at once.
#include <gtest/gtest.h>

#include <atomic>

#include "sampler/sampler.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::sampler {
namespace {

using core::FieldId;
using core::FieldStatus;

std::atomic<int> g_name_calls{0};
std::atomic<nvmlReturn_t> g_name_rc{NVML_SUCCESS};

nvml::NvmlFunctions counting_functions(testing::FakeNvml& fake) {
  nvml::NvmlFunctions f = testing::make_fake_functions(fake);
  f.nvmlDeviceGetName = [](nvmlDevice_t, char* buffer, unsigned length) {
    ++g_name_calls;
    if (g_name_rc != NVML_SUCCESS) return nvmlReturn_t{g_name_rc};
    return testing::fake_detail::copy("Fake GPU", buffer, length);
  };
  return f;
}

SampleOptions slow_options(unsigned every) {
  SampleOptions o;
  o.fields = {FieldId::Name, FieldId::TemperatureGpu};
  o.slow_every = every;
  return o;
}

TEST(SlowFields, NamesAndLimitsAreSlowValuesAreNot) {
  EXPECT_TRUE(is_slow_source(core::Source::Name));
  EXPECT_TRUE(is_slow_source(core::Source::PciInfo));
  EXPECT_TRUE(is_slow_source(core::Source::MaxClockInfo));
  EXPECT_TRUE(is_slow_source(core::Source::EnforcedPowerLimit));
  EXPECT_TRUE(is_slow_source(core::Source::TotalEccErrors));
  EXPECT_FALSE(is_slow_source(core::Source::Temperature));
  EXPECT_FALSE(is_slow_source(core::Source::UtilizationRates));
  EXPECT_FALSE(is_slow_source(core::Source::MemoryInfo));
  EXPECT_FALSE(is_slow_source(core::Source::PowerUsage));
}

TEST(SlowFields, ReadEveryNthSampleAndKeptInBetween) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(counting_functions(fake));
  Sampler sampler(api);
  g_name_calls = 0;
  g_name_rc = NVML_SUCCESS;
  core::Snapshot snap;
  std::optional<std::chrono::system_clock::time_point> first_read;
  for (int i = 0; i < 6; ++i) {
    sampler.sample_into(slow_options(3), snap);
    ASSERT_EQ(snap.devices.size(), 1u);
    // Kept, never blanked, between its reads; the fast field is read every time.
    EXPECT_EQ(snap.devices[0].get(FieldId::Name).as_string(), "Fake GPU") << i;
    EXPECT_EQ(snap.devices[0].get(FieldId::TemperatureGpu).as_int(), 42);
    ASSERT_TRUE(sampler.slow_fields_read_at(0).has_value());
    if (i == 0) first_read = sampler.slow_fields_read_at(0);
    if (i == 1 || i == 2) EXPECT_EQ(sampler.slow_fields_read_at(0), first_read);  // its own time
    if (i == 3) EXPECT_EQ(sampler.slow_fields_read_at(0), snap.timestamp);
  }
  EXPECT_EQ(g_name_calls, 2);  // samples 0 and 3
  EXPECT_EQ(fake.calls["nvmlDeviceGetTemperature"], 6);
}

TEST(SlowFields, EverySampleByDefault) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(counting_functions(fake));
  Sampler sampler(api);
  g_name_calls = 0;
  g_name_rc = NVML_SUCCESS;
  core::Snapshot snap;
  for (int i = 0; i < 4; ++i) sampler.sample_into(slow_options(0), snap);
  EXPECT_EQ(g_name_calls, 4);
}

TEST(SlowFields, AFailedSlowFieldIsAskedAgainAtTheNextSample) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(counting_functions(fake));
  Sampler sampler(api);
  g_name_calls = 0;
  g_name_rc = NVML_ERROR_TIMEOUT;  // transient
  core::Snapshot snap;
  sampler.sample_into(slow_options(10), snap);
  EXPECT_EQ(snap.devices[0].get(FieldId::Name).status, FieldStatus::Failed);
  g_name_rc = NVML_SUCCESS;
  sampler.sample_into(slow_options(10), snap);  // not settled: not left for 10 samples
  EXPECT_EQ(snap.devices[0].get(FieldId::Name).as_string(), "Fake GPU");
  EXPECT_EQ(g_name_calls, 2);
  sampler.sample_into(slow_options(10), snap);  // settled now: kept
  EXPECT_EQ(g_name_calls, 2);
}

TEST(SlowFields, ReadAgainAfterTheGpuWasInaccessible) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(counting_functions(fake));
  Sampler sampler(api);
  g_name_calls = 0;
  g_name_rc = NVML_SUCCESS;
  core::Snapshot snap;
  sampler.sample_into(slow_options(10), snap);
  fake.devices[0].handle_rc = NVML_ERROR_NO_PERMISSION;
  sampler.sample_into(slow_options(10), snap);
  EXPECT_EQ(snap.devices[0].state, core::DeviceState::Inaccessible);
  EXPECT_FALSE(snap.devices[0].get(FieldId::Name).ok());  // a GPU that does not answer shows no value
  fake.devices[0].handle_rc = NVML_SUCCESS;
  sampler.sample_into(slow_options(10), snap);
  EXPECT_EQ(snap.devices[0].get(FieldId::Name).as_string(), "Fake GPU");
  EXPECT_EQ(g_name_calls, 2);
}

}  // namespace
}  // namespace gpuwatch::sampler
