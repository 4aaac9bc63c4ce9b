#include "tui/local_source.hpp"

#include <set>

#include "diagnose/input_fields.hpp"

namespace gpuwatch::tui {
namespace {

exporter::CollectorOptions collector_options(std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                                             std::shared_ptr<attribution::Attributor> attributor) {
  exporter::CollectorOptions options;
  options.attributor = std::move(attributor);
  options.attribute_every = std::chrono::seconds(2);  // as often as the host columns (/proc)
  options.interval = interval;
  options.stale_after = stale_after;
  options.processes = true;  // per-process GPU utilization
  options.diagnose = true;   // the finding line under each GPU
  options.one_thread = true;  // one wake-up a tick for every GPU; a hung GPU moves to a thread of its own
  options.slow_every = 10;    // names, limits, maxima, ECC counters: every 10th sample (they keep their values)
  // What GpuView shows (model.cpp), the identity a lost GPU keeps, and what the diagnose engine reads.
  using F = core::FieldId;
  options.only_fields = {F::Name, F::Uuid, F::PciBusId, F::UtilizationGpu, F::MemoryUsed, F::MemoryTotal,
                         F::PowerDraw, F::EnforcedPowerLimit, F::PowerLimit, F::TemperatureGpu,
                         F::TemperatureGpuSlowdown, F::ClocksCurrentSm, F::ClocksMaxSm, F::ClocksCurrentMemory,
                         F::PcieRxThroughput, F::PcieTxThroughput, F::FanSpeed, F::ClocksEventReasonsActive};
  options.extra_fields = diagnose::with_input_fields({F::DriverVersion});
  return options;
}

}  // namespace

LocalSource::LocalSource(const nvml::NvmlApi& api, std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                         std::shared_ptr<attribution::Attributor> attributor)
    : attributor_(attributor), collector_(api, collector_options(interval, stale_after, std::move(attributor))) {}

void LocalSource::start() {
  if (attributor_) attributor_->start();
  collector_.start();
  host_.start();
}

Model LocalSource::read() {
  const auto host = host_.latest();
  Model model;
  std::set<std::uint32_t> pids;
  collector_.with_view([&](const exporter::ExportView& view) {
    const core::Snapshot& snapshot = *view.snapshot;
    model.driver_version = snapshot.driver_version;
    for (std::size_t i = 0; i < snapshot.devices.size() && i < view.status.size(); ++i) {
      model.gpus.push_back(make_gpu_view(snapshot.devices[i], view.status[i], view.findings));
    }
    model.processes = make_process_views(snapshot, host, view.process_users);
    for (auto& p : model.processes) {
      if (auto owner = view.process_owners.find(p.pid); owner != view.process_owners.end() && !owner->second.empty()) {
        p.owner = owner->second.summary();
      }
    }
  });
  model.ancestors = host_.latest_ancestors();
  for (const auto& p : model.processes) pids.insert(p.pid);
  host_.want(pids);
  return model;
}

bool LocalSource::stop() {
  host_.stop();
  return collector_.stop(std::chrono::seconds(1));
}

}  // namespace gpuwatch::tui
