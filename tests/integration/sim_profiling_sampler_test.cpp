// sampler::ProfilingSampler (NVIDIA's profiling reader: nvml::GpmReader + nvml::read_mig_devices) on the stand-in
// driver: GPM fields absent at the first sample and from the second on the window's
// activity; NotSupported before Hopper and on a parent in MIG mode; MIG devices with their
// profile and memory; per-GPU-instance activity from the second sample.
#include <chrono>
#include <thread>

#include "core/field_table.hpp"
#include "nvml/gpm_reader.hpp"
#include "nvml/mig_reader.hpp"
#include "nvml/nvml_backend.hpp"
#include "nvml/nvml_library.hpp"
#include "sampler/profiling_sampler.hpp"
#include "sampler/sampler.hpp"
#include "tests/integration/sim_driver_harness.hpp"

namespace gpuwatch::sim::testing {
namespace {

using core::FieldId;
using core::FieldStatus;

// Samples GPU INDEX twice, SLEEP_MS apart, as the exporter's collector does.
struct TwoSamples {
  core::DeviceSnapshot first, second;
};

TwoSamples sample_twice(const nvml::NvmlApi& api, unsigned index, int sleep_ms) {
  const nvml::NvmlBackend backend(api.raw());
  sampler::Sampler sampler(backend);
  sampler::ProfilingSampler profiling(backend, index);
  sampler::SampleOptions options;
  options.fields = nvml::gpm_fields();
  options.fields.push_back(FieldId::Uuid);
  options.devices = {index};
  core::Snapshot snap;
  TwoSamples out;
  sampler.sample_into(options, snap);
  profiling.sample(snap.devices.front(), sampler.handle_of(index));
  out.first = snap.devices.front();
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  sampler.sample_into(options, snap);
  profiling.sample(snap.devices.front(), sampler.handle_of(index));
  out.second = snap.devices.front();
  return out;
}

std::unique_ptr<nvml::NvmlLibrary> open_sim() {
  auto lib = nvml::NvmlLibrary::open(driver_dir() + "/libnvidia-ml.so.1");
  EXPECT_TRUE(lib) << lib.error().message;
  return lib ? std::move(*lib) : nullptr;
}

TEST(SimProfilingSampler, GpmFieldsFromTheSecondSampleOnHopperOnly) {
  std::string path = temp_scenario(
      "gpus:\n  - {model: H100 SXM 80GB, phases: [{kind: training, duration: 1h}]}\n"
      "  - {model: A100 SXM 80GB, phases: [{kind: training, duration: 1h}]}\n");
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", path}}, [](Nvml&) {
    auto lib = open_sim();
    ASSERT_TRUE(lib);
    TwoSamples h100 = sample_twice(lib->api(), 0, 250);
    const auto& first = h100.first.get(FieldId::GpmTensorActive);
    EXPECT_FALSE(first.ok());  // no window yet: absent, never 0
    EXPECT_EQ(first.status, FieldStatus::NotRead);
    auto tensor = h100.second.get(FieldId::GpmTensorActive).as_double();
    ASSERT_TRUE(tensor.has_value());
    EXPECT_GT(*tensor, 0.5);  // a ratio, not percent
    EXPECT_LE(*tensor, 1.0);
    for (auto f : nvml::gpm_fields()) EXPECT_TRUE(h100.second.get(f).ok()) << core::field_info(f).name;
    EXPECT_TRUE(h100.second.mig_devices.empty());

    TwoSamples a100 = sample_twice(lib->api(), 1, 0);
    for (const auto* d : {&a100.first, &a100.second}) {
      EXPECT_EQ(d->get(FieldId::GpmTensorActive).status, FieldStatus::NotSupported);
      EXPECT_FALSE(d->get(FieldId::GpmSmActive).ok());
    }
  }));
  std::remove(path.c_str());
}

TEST(SimProfilingSampler, MigDevicesMemoryAndGpuInstanceActivity) {
  EXPECT_TRUE(in_child({{"GPUWATCH_SIM_SCENARIO", "mig"}}, [](Nvml&) {
    auto lib = open_sim();
    ASSERT_TRUE(lib);
    TwoSamples h100 = sample_twice(lib->api(), 2, 250);
    const auto& migs = h100.first.mig_devices;
    ASSERT_EQ(migs.size(), 3u);
    EXPECT_EQ(migs[0].profile, "3g.40gb");
    EXPECT_EQ(migs[2].profile, "1g.10gb");
    EXPECT_EQ(migs[1].gpu_instance_id, 2u);
    EXPECT_EQ(migs[1].compute_instance_id, 0u);
    EXPECT_EQ(migs[0].uuid.rfind("MIG-", 0), 0u) << migs[0].uuid;
    ASSERT_TRUE(migs[0].memory_total_bytes);
    EXPECT_EQ(*migs[0].memory_total_bytes, 40448ull << 20);
    EXPECT_EQ(*migs[0].memory_used_bytes, 31000ull << 20);
    EXPECT_EQ(*migs[0].memory_free_bytes, (40448ull - 31000) << 20);
    EXPECT_TRUE(h100.first.gpu_instance_activity.empty());  // first sample: no window
    EXPECT_EQ(h100.second.get(FieldId::GpmTensorActive).status, FieldStatus::NotSupported);  // parent in MIG mode
    const auto& activity = h100.second.gpu_instance_activity;
    ASSERT_EQ(activity.size(), 3u);
    auto tensor_of = [](const core::GpuInstanceActivity& a) {
      for (const auto& [f, v] : a.ratios)
        if (f == FieldId::GpmTensorActive) return v;
      return -1.0;
    };
    EXPECT_EQ(activity[0].gpu_instance_id, 1u);
    EXPECT_GT(tensor_of(activity[0]), 0.5);  // training in instance 1
    EXPECT_EQ(tensor_of(activity[2]), 0.0);  // nothing runs in instance 3
    ASSERT_TRUE(activity[0].pcie_rx_bytes_per_s);
    EXPECT_GT(*activity[0].pcie_rx_bytes_per_s, 1e6);  // bytes/s, not MiB/s

    TwoSamples a100 = sample_twice(lib->api(), 0, 0);
    EXPECT_EQ(a100.second.mig_devices.size(), 3u);  // inventory and memory only
    EXPECT_TRUE(a100.second.gpu_instance_activity.empty());
  }));
}

TEST(MigReader, ProfileFromTheMigDeviceName) {
  EXPECT_EQ(nvml::mig_profile_of("NVIDIA H100 80GB HBM3 MIG 3g.40gb"), "3g.40gb");
  EXPECT_EQ(nvml::mig_profile_of("NVIDIA A100-SXM4-80GB MIG 1c.3g.40gb"), "1c.3g.40gb");
  EXPECT_EQ(nvml::mig_profile_of("NVIDIA H100 80GB HBM3"), "");
}

}  // namespace
}  // namespace gpuwatch::sim::testing
