// nvml::GpmReader on a scripted fake GPM: no value at the first sample, the window's
// metrics in base units after it, a failed sample restarts the window, a driver without
// the GPM symbols is FunctionMissing without calls, and every sample it took is freed.
#include "nvml/gpm_reader.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/field_table.hpp"

namespace gpuwatch::nvml {
namespace {

using core::FieldId;
using core::FieldStatus;

struct FakeGpm {
  unsigned supported = 1;
  nvmlReturn_t sample_rc = NVML_SUCCESS;
  int sample_calls = 0, metrics_calls = 0, support_calls = 0;
  std::set<nvmlGpmSample_t> live;
  long long storage[16] = {};
  int next = 0;
};
FakeGpm* g_fake = nullptr;

NvmlFunctions fake_functions(FakeGpm& fake) {
  g_fake = &fake;
  NvmlFunctions f;
  f.nvmlGpmQueryDeviceSupport = [](nvmlDevice_t, nvmlGpmSupport_t* s) {
    ++g_fake->support_calls;
    s->isSupportedDevice = g_fake->supported;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlGpmSampleAlloc = [](nvmlGpmSample_t* s) {
    *s = reinterpret_cast<nvmlGpmSample_t>(&g_fake->storage[g_fake->next++ % 16]);
    g_fake->live.insert(*s);
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlGpmSampleFree = [](nvmlGpmSample_t s) {
    return g_fake->live.erase(s) ? nvmlReturn_t{NVML_SUCCESS} : nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
  };
  f.nvmlGpmSampleGet = [](nvmlDevice_t, nvmlGpmSample_t s) {
    ++g_fake->sample_calls;
    return g_fake->live.count(s) ? g_fake->sample_rc : nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
  };
  f.nvmlGpmMetricsGet = [](nvmlGpmMetricsGet_t* m) {
    ++g_fake->metrics_calls;
    if (m->version != NVML_GPM_METRICS_GET_VERSION || !g_fake->live.count(m->sample1) || !g_fake->live.count(m->sample2) ||
        m->sample1 == m->sample2)
      return nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
    for (unsigned i = 0; i < m->numMetrics; ++i) {
      auto& metric = m->metrics[i];
      metric.nvmlReturn = metric.metricId == NVML_GPM_METRIC_FP64_UTIL ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
      metric.value = metric.metricId == NVML_GPM_METRIC_ANY_TENSOR_UTIL ? 62.5 : 10.0;
    }
    return nvmlReturn_t{NVML_SUCCESS};
  };
  return f;
}

nvmlDevice_t kDev = reinterpret_cast<nvmlDevice_t>(1);

TEST(GpmReader, FirstSampleAbsentThenTheWindowInRatios) {
  FakeGpm fake;
  NvmlApi api(fake_functions(fake));
  core::DeviceSnapshot d;
  {
    GpmReader reader(api);
    EXPECT_EQ(reader.read_device(kDev, d), NVML_SUCCESS);
    EXPECT_EQ(d.get(FieldId::GpmTensorActive).status, FieldStatus::NotRead);  // no window yet
    EXPECT_EQ(fake.metrics_calls, 0);
    EXPECT_EQ(reader.read_device(kDev, d), NVML_SUCCESS);
    ASSERT_TRUE(d.get(FieldId::GpmTensorActive).ok());
    EXPECT_DOUBLE_EQ(*d.get(FieldId::GpmTensorActive).as_double(), 0.625);
    EXPECT_DOUBLE_EQ(*d.get(FieldId::GpmSmActive).as_double(), 0.10);
    EXPECT_EQ(d.get(FieldId::GpmFp64Active).status, FieldStatus::NotSupported);  // that metric only
    // A failed sample: no values, and the next window starts at the next good sample.
    fake.sample_rc = NVML_ERROR_UNKNOWN;
    reader.read_device(kDev, d);
    EXPECT_EQ(d.get(FieldId::GpmTensorActive).status, FieldStatus::Failed);
    fake.sample_rc = NVML_SUCCESS;
    reader.read_device(kDev, d);
    EXPECT_EQ(d.get(FieldId::GpmTensorActive).status, FieldStatus::NotRead);
    reader.read_device(kDev, d);
    EXPECT_TRUE(d.get(FieldId::GpmTensorActive).ok());
    EXPECT_EQ(fake.support_calls, 1);  // asked once
    EXPECT_EQ(fake.live.size(), 2u);   // two buffers, reused
  }
  EXPECT_TRUE(fake.live.empty());  // freed by the destructor
}

TEST(GpmReader, UnsupportedGpuAndMissingSymbols) {
  FakeGpm fake;
  fake.supported = 0;
  NvmlApi api(fake_functions(fake));
  GpmReader reader(api);
  core::DeviceSnapshot d;
  for (int i = 0; i < 3; ++i) {
    reader.read_device(kDev, d);
    EXPECT_EQ(d.get(FieldId::GpmTensorActive).status, FieldStatus::NotSupported);
  }
  EXPECT_EQ(fake.sample_calls, 0);
  EXPECT_EQ(fake.support_calls, 1);

  NvmlApi bare{NvmlFunctions{}};  // an old driver: no GPM symbols at all
  GpmReader old(bare);
  old.read_device(kDev, d);
  EXPECT_EQ(d.get(FieldId::GpmSmOccupancy).status, FieldStatus::FunctionMissing);
  d.mig_devices.push_back(core::MigDeviceSample{"MIG-1", "1g.10gb", 1, 0, {}, {}, {}, {}});
  old.read_gpu_instances(kDev, d);
  EXPECT_TRUE(d.gpu_instance_activity.empty());
}

TEST(GpmReader, GpmFieldsAreTheGpmSourceRows) {
  const auto& fields = gpm_fields();
  ASSERT_GE(fields.size(), 5u);
  for (auto f : fields) {
    const auto& info = core::field_info(f);
    EXPECT_EQ(info.unit, core::Unit::Ratio) << info.name;
    EXPECT_GT(info.arg, 0) << info.name;
    EXPECT_LT(info.arg, NVML_GPM_METRIC_MAX) << info.name;
  }
}

}  // namespace
}  // namespace gpuwatch::nvml
