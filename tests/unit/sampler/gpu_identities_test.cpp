#include "sampler/gpu_identities.hpp"

#include <gtest/gtest.h>

#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::sampler {
namespace gpu_identities_test {  // this test file's helpers (unity builds: no clash with another file's)

TEST(GpuIdentities, GivesEachGpusIndexAndUuid) {
  testing::FakeNvml fake;
  fake.devices.resize(2);
  fake.devices[1].uuid = "GPU-bbbbbbbb-2222-3333-4444-555555555555";
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  const core::Snapshot ids = gpu_identities(api);
  ASSERT_EQ(ids.devices.size(), 2u);
  EXPECT_EQ(ids.devices[0].index, 0u);
  EXPECT_EQ(ids.devices[1].index, 1u);
  EXPECT_EQ(ids.devices[0].get(core::FieldId::Uuid).as_string(), "GPU-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(ids.devices[1].get(core::FieldId::Uuid).as_string(), "GPU-bbbbbbbb-2222-3333-4444-555555555555");
}

}  // namespace gpu_identities_test
}  // namespace gpuwatch::sampler
