// serve --attribution-labels (issue 15): dcgm-exporter's pod, namespace, container and hpc_job
// labels on per-GPU series, only when asked for and only those with a value.
#include "exporter/owner_labels.hpp"

#include <gtest/gtest.h>

#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {
namespace owner_labels_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::Snapshot two_gpus() {
  core::Snapshot snap;
  snap.device_count = 2;
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot d;
    d.index = i;
    d.get(FieldId::Index) = FieldReading::of(std::int64_t{i});
    d.get(FieldId::Uuid) = FieldReading::of(std::string(i == 0 ? "GPU-a" : "GPU-b"));
    d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{50});
    snap.devices.push_back(d);
  }
  return snap;
}

TEST(OwnerLabels, OnlyLabelsWithAValue) {
  std::string labels;
  add_owner_labels(labels, {"trainer-0", "ml", "", "4821"});
  EXPECT_EQ(labels, "pod=\"trainer-0\",namespace=\"ml\",hpc_job=\"4821\"");
  std::string none;
  add_owner_labels(none, {});
  EXPECT_EQ(none, "");
}

TEST(OwnerLabels, OnEverySeriesOfTheGpuWhenAskedFor) {
  core::Snapshot snap = two_gpus();
  live::LiveView view{&snap, {live::DeviceStatus{true, true, 0.1, 0.01}, live::DeviceStatus{true, true, 0.1, 0.01}}, {}, {}, true};
  view.gpu_owners = {{"trainer-0", "ml", "pytorch", ""}, {"", "", "", "4821,4822"}};
  EncodeOptions options;
  EXPECT_EQ(encode_prometheus(view, options).find("pod="), std::string::npos);  // off by default
  options.attribution_labels = true;
  std::string text = encode_prometheus(view, options);
  EXPECT_NE(text.find("gpuwatch_temperature_gpu_celsius{gpu=\"0\",uuid=\"GPU-a\",vendor=\"nvidia\",pod=\"trainer-0\",namespace=\"ml\","
                      "container=\"pytorch\"} 50\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpuwatch_temperature_gpu_celsius{gpu=\"1\",uuid=\"GPU-b\",vendor=\"nvidia\",hpc_job=\"4821,4822\"} 50\n"),
            std::string::npos)
      << text;
  // Attribution off in the collector (no owners at all): no labels, no crash.
  view.gpu_owners.clear();
  EXPECT_EQ(encode_prometheus(view, options).find("hpc_job="), std::string::npos);
}

}  // namespace owner_labels_test
}  // namespace gpuwatch::exporter
