#include "exporter/metric_list.hpp"
#include "live/collector.hpp"
#include <algorithm>

#include <gtest/gtest.h>

#include <regex>
#include <set>


namespace gpuwatch::exporter {
namespace {

using core::FieldId;

std::string name_of(FieldId id) {
  const MetricSpec* spec = find_metric(id);
  EXPECT_NE(spec, nullptr);
  return spec ? spec->name : "";
}

TEST(MetricList, NamesFollowTheNamingRule) {
  EXPECT_EQ(name_of(FieldId::UtilizationGpu), "gpuwatch_utilization_gpu_ratio");
  EXPECT_EQ(name_of(FieldId::MemoryUsed), "gpuwatch_memory_used_bytes");
  EXPECT_EQ(name_of(FieldId::TemperatureGpu), "gpuwatch_temperature_gpu_celsius");
  EXPECT_EQ(name_of(FieldId::PowerDraw), "gpuwatch_power_draw_watts");
  EXPECT_EQ(name_of(FieldId::ClocksCurrentSm), "gpuwatch_clocks_current_sm_hertz");
  EXPECT_EQ(name_of(FieldId::EnergyTotal), "gpuwatch_energy_joules_total");
  EXPECT_EQ(name_of(FieldId::PcieTxThroughput), "gpuwatch_pcie_tx_throughput_bytes_per_second");
  EXPECT_EQ(name_of(FieldId::PcieReplayCounter), "gpuwatch_pcie_replay_total");
  EXPECT_EQ(name_of(FieldId::EccErrorsCorrectedVolatileTotal), "gpuwatch_ecc_errors_corrected_volatile_total");
  EXPECT_EQ(find_metric(FieldId::Name), nullptr);  // text: a gpu_info label, not a series
}

TEST(MetricList, NamesAreValidUniqueAndCountersEndInTotal) {
  std::regex valid("gpuwatch_[a-z0-9_]+");
  std::set<std::string> names;
  for (const auto& spec : metric_specs()) {
    EXPECT_TRUE(std::regex_match(spec.name, valid)) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    bool ends_total = spec.name.size() > 6 && spec.name.substr(spec.name.size() - 6) == "_total";
    EXPECT_EQ(ends_total, spec.type == MetricType::Counter) << spec.name;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    EXPECT_NE(core::field_info(spec.field).display, core::Display::Text) << spec.name << " is a text field";
  }
  EXPECT_GE(names.size(), 40U);
}

TEST(MetricList, ExportedFieldsCoverMetricsAndIdentity) {
  auto fields = exported_fields();
  std::set<FieldId> set(fields.begin(), fields.end());
  EXPECT_EQ(set.size(), fields.size());
  EXPECT_TRUE(set.count(FieldId::Uuid));
  EXPECT_TRUE(set.count(FieldId::Name));
  for (const auto& spec : metric_specs()) EXPECT_TRUE(set.count(spec.field)) << spec.name;
}

}  // namespace
}  // namespace gpuwatch::exporter

namespace gpuwatch::exporter {
namespace metric_list_identity_test {
// A lost GPU keeps its identity (live::identity_fields): every gpuwatch_gpu_info label among it.
TEST(MetricListIdentity, EveryInfoLabelIsKeptForALostGpu) {
  const auto kept = live::identity_fields();
  for (const auto& label : info_labels()) {
    EXPECT_NE(std::find(kept.begin(), kept.end(), label.field), kept.end()) << label.label;
  }
  EXPECT_NE(std::find(kept.begin(), kept.end(), core::FieldId::Uuid), kept.end());
}
}  // namespace metric_list_identity_test
}  // namespace gpuwatch::exporter
