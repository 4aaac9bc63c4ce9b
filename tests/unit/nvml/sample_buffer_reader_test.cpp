// nvml::SampleBufferReader on a scripted sample buffer: no value at the first call (it marks
// where the interval starts), then the idle share and the gaps that began since; a gap going on
// from the previous interval is not counted twice; garbage samples are dropped; a driver
// without the symbol or a GPU without the buffer is asked once; NOT_FOUND is absent, never 0.
#include "nvml/sample_buffer_reader.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace gpuwatch::nvml {
namespace {

using core::FieldId;
using core::FieldStatus;

namespace sample_buffer_reader_test {

struct FakeBuffer {
  std::vector<nvmlSample_t> samples;  // oldest first
  nvmlReturn_t rc = NVML_SUCCESS;
  int calls = 0;
  unsigned long long last_seen = 0;
  void add(unsigned long long ts, unsigned util) {
    nvmlSample_t s{};
    s.timeStamp = ts;
    s.sampleValue.uiVal = util;
    samples.push_back(s);
  }
};
FakeBuffer* g_buffer = nullptr;

NvmlFunctions functions(FakeBuffer& fake) {
  g_buffer = &fake;
  NvmlFunctions f;
  f.nvmlDeviceGetSamples = [](nvmlDevice_t, int type, unsigned long long since, int* vtype, unsigned* count,
                              nvmlSample_t* out) {
    ++g_buffer->calls;
    g_buffer->last_seen = since;
    if (type != NVML_GPU_UTILIZATION_SAMPLES) return nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
    if (g_buffer->rc != NVML_SUCCESS) return g_buffer->rc;
    *vtype = NVML_VALUE_TYPE_UNSIGNED_INT;
    std::vector<nvmlSample_t> newer;
    for (const auto& s : g_buffer->samples)
      if (s.timeStamp > since) newer.push_back(s);
    if (newer.empty()) return nvmlReturn_t{NVML_ERROR_NOT_FOUND};
    if (out == nullptr) {
      *count = static_cast<unsigned>(newer.size());
      return nvmlReturn_t{NVML_SUCCESS};
    }
    unsigned n = 0;
    for (; n < *count && n < newer.size(); ++n) out[n] = newer[n];
    *count = n;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}

double share(const core::DeviceSnapshot& d) { return *d.get(FieldId::UtilizationGpuIdleShare).as_double(); }
std::uint64_t gaps(const core::DeviceSnapshot& d) { return *d.get(FieldId::UtilizationGpuIdleGaps).as_uint(); }
std::chrono::system_clock::time_point at_us(long long us) {
  return std::chrono::system_clock::time_point(std::chrono::microseconds(us));
}

}  // namespace sample_buffer_reader_test

using namespace sample_buffer_reader_test;

TEST(SampleBufferSummary, CountsIdleSamplesAndTheGapsThatBegin) {
  const std::vector<unsigned> u = {100, 100, 0, 3, 100, 20, 0, 100};
  IdleSummary s = summarize_idle(u, false);
  EXPECT_EQ(s.samples, 8u);
  EXPECT_EQ(s.idle, 3u);  // 0, 3 and 0: below 5 %
  EXPECT_EQ(s.gaps, 2u);
  EXPECT_FALSE(s.ends_idle);
  // A gap that goes on from the previous interval began there.
  const std::vector<unsigned> cont = {0, 0, 100};
  EXPECT_EQ(summarize_idle(cont, true).gaps, 0u);
  EXPECT_EQ(summarize_idle(cont, false).gaps, 1u);
  EXPECT_EQ(summarize_idle({}, true).samples, 0u);
}

TEST(SampleBufferReader, FirstCallMarksTheIntervalThenSummarisesOnlyNewerSamples) {
  FakeBuffer fake;
  for (unsigned long long ts = 1; ts <= 6; ++ts) fake.add(ts * 1000, ts % 3 == 0 ? 0 : 100);
  NvmlApi api(functions(fake));
  SampleBufferReader reader(api);
  core::DeviceSnapshot d;
  EXPECT_EQ(reader.read(nullptr, d, at_us(6000)), NVML_SUCCESS);
  EXPECT_EQ(fake.calls, 0);  // the first call asks nothing: its interval starts now
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).status, FieldStatus::NotRead);  // no interval yet: absent
  EXPECT_FALSE(d.get(FieldId::UtilizationGpuIdleGaps).ok());
  for (unsigned long long ts = 7; ts <= 10; ++ts) fake.add(ts * 1000, ts == 7 || ts == 9 ? 0 : 100);
  EXPECT_EQ(reader.read(nullptr, d, at_us(10500)), NVML_SUCCESS);
  EXPECT_EQ(fake.last_seen, 6000u);  // only what is newer than the start of the interval
  EXPECT_DOUBLE_EQ(share(d), 0.5);
  EXPECT_EQ(gaps(d), 2u);
  // A gap that goes on into the next interval is counted where it began.
  fake.add(11000, 0);
  fake.add(12000, 0);
  reader.read(nullptr, d, at_us(12500));
  EXPECT_EQ(fake.last_seen, 10000u);
  EXPECT_EQ(gaps(d), 1u);
  fake.add(13000, 0);
  fake.add(14000, 100);
  reader.read(nullptr, d, at_us(14500));
  EXPECT_DOUBLE_EQ(share(d), 0.5);
  EXPECT_EQ(gaps(d), 0u);
  // Nothing newer: absent with the driver's code, never a 0.
  EXPECT_EQ(reader.read(nullptr, d, at_us(14600)), NVML_SUCCESS);
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).status, FieldStatus::NotRead);
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).vendor_code, NVML_ERROR_NOT_FOUND);
}

TEST(SampleBufferReader, DropsGarbageSamples) {
  FakeBuffer fake;
  NvmlApi api(functions(fake));
  SampleBufferReader reader(api);
  core::DeviceSnapshot d;
  reader.read(nullptr, d, at_us(1000));
  fake.add(2000, 0);
  fake.add(3000, 4000);  // util > 100 %: garbage (nvtop#110)
  reader.read(nullptr, d, at_us(3000));
  EXPECT_DOUBLE_EQ(share(d), 1.0);
  EXPECT_EQ(gaps(d), 1u);
}

TEST(SampleBufferReader, MissingSymbolAndNotSupportedAreAskedOnce) {
  FakeBuffer fake;
  NvmlApi none{NvmlFunctions{}};
  SampleBufferReader without(none);
  core::DeviceSnapshot d;
  EXPECT_EQ(without.read(nullptr, d, at_us(1000)), NVML_SUCCESS);
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleGaps).status, FieldStatus::FunctionMissing);

  fake.rc = NVML_ERROR_NOT_SUPPORTED;
  NvmlApi api(functions(fake));
  SampleBufferReader reader(api);
  for (long long t : {1000, 2000, 3000}) reader.read(nullptr, d, at_us(t));
  EXPECT_EQ(fake.calls, 1);
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).status, FieldStatus::NotSupported);
}

TEST(SampleBufferReader, ALostGpuStartsOver) {
  FakeBuffer fake;
  NvmlApi api(functions(fake));
  SampleBufferReader reader(api);
  core::DeviceSnapshot d;
  reader.read(nullptr, d, at_us(500));
  fake.add(1000, 0);
  fake.rc = NVML_ERROR_GPU_IS_LOST;
  EXPECT_EQ(reader.read(nullptr, d, at_us(1500)), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).status, FieldStatus::Failed);
  fake.rc = NVML_SUCCESS;
  const int calls = fake.calls;
  reader.read(nullptr, d, at_us(2500));  // a new first call: no interval, nothing asked
  EXPECT_EQ(d.get(FieldId::UtilizationGpuIdleShare).status, FieldStatus::NotRead);
  EXPECT_EQ(fake.calls, calls);
}

}  // namespace
}  // namespace gpuwatch::nvml
