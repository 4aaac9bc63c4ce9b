#include "exporter/energy_metrics.hpp"

#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {

void encode_energy_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  const core::Snapshot& snap = *view.snapshot;
  Family family(out, "gpuwatch_energy_joules_total", "counter",
                "Energy the GPU used in joules. source=\"counter\": the driver's counter (energy.total) "
                "since the driver was loaded; source=\"estimated\" (GPUs "
                "without that counter): power.draw integrated over gpuwatch's samples since gpuwatch started, "
                "not across gaps longer than the stale limit or while the GPU is lost");
  std::string l;
  for (std::size_t i = 0; i < snap.devices.size() && i < labels.size(); ++i) {
    if (!view.status[i].up) continue;
    const core::FieldReading& counter = snap.devices[i].get(core::FieldId::EnergyTotal);
    if (counter.as_double()) {
      l = labels[i];
      add_label(l, "source", "counter");
      family.sample(l, format_sample_value(*counter.value));
    } else if (counter.status == core::FieldStatus::NotSupported ||
               counter.status == core::FieldStatus::FunctionMissing ||
               counter.status == core::FieldStatus::NotApplicable) {
      // No counter on this GPU (a failed read is not "no counter": no series this scrape).
      if (!view.status[i].estimated_energy_joules) continue;
      l = labels[i];
      add_label(l, "source", "estimated");
      family.sample(l, format_double(*view.status[i].estimated_energy_joules));
    }
  }
}

}  // namespace gpuwatch::exporter
