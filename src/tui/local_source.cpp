#include "tui/local_source.hpp"

#include <set>

#include "diagnose/input_fields.hpp"
#include "live/diagnosis_input.hpp"

namespace gpuwatch::tui {
namespace {

live::CollectorOptions collector_options(std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                                             std::shared_ptr<attribution::Attributor> attributor) {
  live::CollectorOptions options;
  options.attributor = std::move(attributor);
  options.attribute_every = std::chrono::seconds(2);  // as often as the host columns (/proc)
  options.interval = interval;
  options.stale_after = stale_after;
  options.processes = true;  // per-process GPU utilization
  options.diagnose = false;  // the finding line under each GPU: LocalSource's own diagnosis, ticked by read()
  options.one_thread = true;  // one wake-up a tick for every GPU; a hung GPU moves to a thread of its own
  options.slow_every = 10;    // names, limits, maxima, ECC counters: every 10th sample (they keep their values)
  // What GpuView shows (model.cpp), the identity a lost GPU keeps, and what the diagnose engine reads.
  using F = core::FieldId;
  options.fields = {F::Name, F::Uuid, F::PciBusId, F::UtilizationGpu, F::MemoryUsed, F::MemoryTotal,
                         F::PowerDraw, F::EnforcedPowerLimit, F::PowerLimit, F::TemperatureGpu,
                         F::TemperatureGpuSlowdown, F::ClocksCurrentSm, F::ClocksMaxSm, F::ClocksCurrentMemory,
                         F::PcieRxThroughput, F::PcieTxThroughput, F::FanSpeed, F::ClocksEventReasonsActive};
  options.extra_fields = diagnose::with_input_fields({F::DriverVersion});
  return options;
}

// What the diagnose engine reads, from the collector's view (as Collector's own diagnosis reads it).
live::DiagnosisInput diagnosis_input(const live::LiveView& view, std::chrono::milliseconds stale_after) {
  std::vector<std::optional<double>> sample_age_s;
  sample_age_s.reserve(view.status.size());
  for (const live::DeviceStatus& status : view.status) {
    sample_age_s.push_back(status.has_sample ? std::optional(status.sample_age_seconds) : std::nullopt);
  }
  return live::make_diagnosis_input(*view.snapshot, sample_age_s, std::chrono::duration<double>(stale_after).count(),
                                        view.xid_events);
}

}  // namespace

LocalSource::LocalSource(const nvml::NvmlApi& api, std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                         std::shared_ptr<attribution::Attributor> attributor, diagnose::Diagnoser primed)
    : attributor_(attributor),
      collector_(api, collector_options(interval, stale_after, std::move(attributor))),
      diagnosis_([this] { return std::move(diagnosis_input_); }, interval, {}, std::move(primed),
                 live::proc_identity_reader("/proc", attributor_)) {}

void LocalSource::start() {
  if (attributor_) attributor_->start();
  collector_.start();
  host_.start();
}

Model LocalSource::read() {
  // The diagnose engine ticks here, on the caller's thread, once per read (once per interval): no
  // thread of its own to wake every second, and it goes on while every sampling thread hangs in
  // NVML. It reads the samples copied below, with the model, in the same lock; no NVML call. The
  // finding lines show the previous tick's findings (the collector's diagnosis thread was as late).
  const auto findings = diagnosis_.active();
  const auto host = host_.latest();
  Model model;
  std::set<std::uint32_t> pids;
  collector_.with_view([&](const live::LiveView& view) {
    const core::Snapshot& snapshot = *view.snapshot;
    model.driver_version = snapshot.driver_version;
    for (std::size_t i = 0; i < snapshot.devices.size() && i < view.status.size(); ++i) {
      model.gpus.push_back(make_gpu_view(snapshot.devices[i], view.status[i], findings));
    }
    diagnosis_input_ = diagnosis_input(view, collector_.stale_after());
    model.processes = make_process_views(snapshot, host, view.process_users);
    for (auto& p : model.processes) {
      if (auto owner = view.process_owners.find(p.pid); owner != view.process_owners.end() && !owner->second.empty()) {
        p.owner = owner->second.summary();
      }
    }
  });
  diagnosis_.tick(std::chrono::system_clock::now());
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
