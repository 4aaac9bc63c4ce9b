// nvml::NvlinkRates on scripted NVLink data counters (issue 25): no rate at the first read (absent,
// not 0), then the KiB counters' growth over the driver's timestamps in bytes per second; a counter
// that goes back starts over (absent again); reads too close together keep the previous rate; a
// board without NVLink is NotSupported (the sampler caches it), never 0; through NvmlBackend the
// rate reaches the field table's fields.
#include "nvml/nvlink_rates.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "nvml/nvml_backend.hpp"

namespace gpuwatch::nvml {
namespace {

using core::FieldId;
using core::FieldStatus;

namespace nvlink_rates_test {

struct FakeCounters {
  unsigned long long tx_kib = 0, rx_kib = 0;
  long long at_us = 0;
  nvmlReturn_t rc = NVML_SUCCESS;        // the call's code
  nvmlReturn_t value_rc = NVML_SUCCESS;  // each value's code (NOT_SUPPORTED: no NVLink)
  std::vector<unsigned> scopes;          // the scopeIds asked
};
FakeCounters* g_counters = nullptr;

NvmlFunctions functions(FakeCounters& fake) {
  g_counters = &fake;
  NvmlFunctions f;
  f.nvmlDeviceGetFieldValues = [](nvmlDevice_t, int count, nvmlFieldValue_t* values) {
    if (g_counters->rc != NVML_SUCCESS) return g_counters->rc;
    for (int i = 0; i < count; ++i) {
      nvmlFieldValue_t& v = values[i];
      g_counters->scopes.push_back(v.scopeId);
      v.nvmlReturn = g_counters->value_rc;
      v.timestamp = g_counters->at_us;
      v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
      v.value.ullVal = v.fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ? g_counters->tx_kib : g_counters->rx_kib;
    }
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}

const std::vector<FieldId> kBoth = {FieldId::NvlinkTxThroughput, FieldId::NvlinkRxThroughput};

}  // namespace nvlink_rates_test

using namespace nvlink_rates_test;

TEST(NvlinkRate, BytesPerSecondBetweenTwoReadings) {
  EXPECT_DOUBLE_EQ(*nvlink_rate({1000, 1'000'000}, {3000, 3'000'000}), 1000.0 * 1024);  // 2000 KiB in 2 s
  EXPECT_DOUBLE_EQ(*nvlink_rate({5, 0}, {5, 500'000}), 0.0);                             // no traffic: a real 0
  EXPECT_FALSE(nvlink_rate({3000, 1'000'000}, {1000, 2'000'000}));  // the counter went back
  EXPECT_FALSE(nvlink_rate({1000, 2'000'000}, {3000, 2'000'000}));  // no time passed
  EXPECT_FALSE(nvlink_rate({1000, 2'000'000}, {3000, 1'000'000}));  // time went back
}

TEST(NvlinkRates, AbsentAtTheFirstReadThenTheRateSinceThePreviousRead) {
  FakeCounters fake{.tx_kib = 1'000'000, .rx_kib = 2'000'000, .at_us = 10'000'000};
  NvmlApi api(functions(fake));
  NvlinkRates rates;
  core::DeviceSnapshot d;
  EXPECT_EQ(rates.read(api, nullptr, kBoth, d, 0), NVML_SUCCESS);
  EXPECT_EQ(d.get(FieldId::NvlinkTxThroughput).status, FieldStatus::NotApplicable);  // no interval yet
  EXPECT_FALSE(d.get(FieldId::NvlinkRxThroughput).ok());
  EXPECT_EQ(fake.scopes, (std::vector<unsigned>{UINT_MAX, UINT_MAX}));  // the sum over every link
  fake.tx_kib += 50 * 1024 * 1024;   // 50 GiB
  fake.rx_kib += 25 * 1024 * 1024;
  fake.at_us += 2'000'000;           // in 2 s
  EXPECT_EQ(rates.read(api, nullptr, kBoth, d, 0), NVML_SUCCESS);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 25.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkRxThroughput).as_double(), 12.5 * 1024 * 1024 * 1024);
  // A read 10 ms later (another loop on the same backend): the previous rate, the interval unchanged.
  fake.tx_kib += 1;
  fake.at_us += 10'000;
  rates.read(api, nullptr, kBoth, d, 0);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 25.0 * 1024 * 1024 * 1024);
  // No traffic over the next second: 0 is a value here, the link is there and idle.
  fake.tx_kib -= 1;
  fake.at_us += 990'000;
  rates.read(api, nullptr, kBoth, d, 0);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 0.0);
  EXPECT_TRUE(d.get(FieldId::NvlinkRxThroughput).ok());
}

TEST(NvlinkRates, ACounterThatGoesBackStartsOver) {
  FakeCounters fake{.tx_kib = 900, .rx_kib = 900, .at_us = 1'000'000};
  NvmlApi api(functions(fake));
  NvlinkRates rates;
  core::DeviceSnapshot d;
  rates.read(api, nullptr, kBoth, d, 0);
  fake.tx_kib = fake.rx_kib = 100;  // the driver reloaded
  fake.at_us += 1'000'000;
  rates.read(api, nullptr, kBoth, d, 0);
  EXPECT_EQ(d.get(FieldId::NvlinkTxThroughput).status, FieldStatus::NotApplicable);
  EXPECT_FALSE(d.get(FieldId::NvlinkTxThroughput).value.has_value());
  fake.tx_kib = fake.rx_kib = 1124;  // 1024 KiB in the next second
  fake.at_us += 1'000'000;
  rates.read(api, nullptr, kBoth, d, 0);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 1024.0 * 1024);
}

TEST(NvlinkRates, NoTimestampFromTheDriverUsesTheCallersClock) {
  FakeCounters fake{.tx_kib = 0, .rx_kib = 0, .at_us = 0};
  NvmlApi api(functions(fake));
  NvlinkRates rates;
  core::DeviceSnapshot d;
  rates.read(api, nullptr, kBoth, d, 5'000'000);
  fake.tx_kib = 2048;
  rates.read(api, nullptr, kBoth, d, 6'000'000);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 2048.0 * 1024);
}

TEST(NvlinkRates, ABoardWithoutNvlinkIsNotSupportedNeverZero) {
  FakeCounters fake{.value_rc = NVML_ERROR_NOT_SUPPORTED};
  NvmlApi api(functions(fake));
  NvlinkRates rates;
  core::DeviceSnapshot d;
  for (int i = 0; i < 2; ++i) {
    fake.at_us += 1'000'000;
    EXPECT_EQ(rates.read(api, nullptr, kBoth, d, 0), NVML_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(d.get(FieldId::NvlinkTxThroughput).status, FieldStatus::NotSupported);
    EXPECT_EQ(d.get(FieldId::NvlinkRxThroughput).reason, core::ErrorReason::NotSupported);
    EXPECT_FALSE(d.get(FieldId::NvlinkRxThroughput).value.has_value());
  }
  // A driver without nvmlDeviceGetFieldValues: FunctionMissing.
  NvmlApi none{NvmlFunctions{}};
  EXPECT_EQ(rates.read(none, nullptr, kBoth, d, 0), NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(d.get(FieldId::NvlinkTxThroughput).status, FieldStatus::FunctionMissing);
}

TEST(NvlinkRates, TheBackendKeepsTheCountersBetweenReadSourceCalls) {
  FakeCounters fake{.tx_kib = 0, .rx_kib = 0, .at_us = 1'000'000};
  NvmlBackend backend(functions(fake));
  const backend::DeviceHandle dev{&backend, reinterpret_cast<void*>(0x1)};
  core::DeviceSnapshot d;
  EXPECT_TRUE(backend.read_source(dev, core::Source::NvlinkThroughput, kBoth, d).ok());
  EXPECT_EQ(d.get(FieldId::NvlinkTxThroughput).status, FieldStatus::NotApplicable);
  fake.tx_kib = 4096;
  fake.at_us += 500'000;
  EXPECT_TRUE(backend.read_source(dev, core::Source::NvlinkThroughput, kBoth, d).ok());
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkTxThroughput).as_double(), 4096.0 * 1024 * 2);
  EXPECT_DOUBLE_EQ(*d.get(FieldId::NvlinkRxThroughput).as_double(), 0.0);
  // The stateless reader (a one-shot read through nvml::read_source) has no interval: absent.
  core::DeviceSnapshot once;
  read_source(backend.api(), nullptr, core::Source::NvlinkThroughput, kBoth, once);
  EXPECT_EQ(once.get(FieldId::NvlinkTxThroughput).status, FieldStatus::NotApplicable);
}

}  // namespace
}  // namespace gpuwatch::nvml
