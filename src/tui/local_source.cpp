#include "tui/local_source.hpp"

#include <set>

#include "diagnose/input_fields.hpp"

namespace gpuwatch::tui {
namespace {

live::LiveSessionOptions session_options(std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                                         std::shared_ptr<attribution::Attributor> attributor, std::string prime_from,
                                         live::HostSignalsOptions host) {
  live::LiveSessionOptions session;
  // The finding line under each GPU: the session's diagnosis, ticked by read() (no thread of its own).
  session.diagnosis = live::DiagnosisMode::OnRead;
  session.prime_from = std::move(prime_from);
  live::CollectorOptions& options = session.sampling;
  options.attributor = std::move(attributor);
  options.attribute_every = std::chrono::seconds(2);  // as often as the host columns (/proc)
  options.interval = interval;
  options.stale_after = stale_after;
  options.host = std::move(host);  // the host line (issue 25): its own thread, once per interval
  options.processes = true;  // per-process GPU utilization
  options.one_thread = true;  // one wake-up a tick for every GPU; a hung GPU moves to a thread of its own
  options.slow_every = 10;    // names, limits, maxima, ECC counters: every 10th sample (they keep their values)
  // What GpuView shows (model.cpp), the identity a lost GPU keeps, and what the diagnose engine reads.
  using F = core::FieldId;
  options.fields = {F::Name, F::Uuid, F::PciBusId, F::UtilizationGpu, F::MemoryUsed, F::MemoryTotal,
                         F::PowerDraw, F::EnforcedPowerLimit, F::PowerLimit, F::TemperatureGpu,
                         F::TemperatureGpuSlowdown, F::ClocksCurrentSm, F::ClocksMaxSm, F::ClocksCurrentMemory,
                         F::PcieRxThroughput, F::PcieTxThroughput, F::FanSpeed, F::ClocksEventReasonsActive};
  options.extra_fields = diagnose::with_input_fields({F::DriverVersion});
  return session;
}

}  // namespace

LocalSource::LocalSource(const backend::DeviceBackend& api, std::chrono::milliseconds interval, std::chrono::milliseconds stale_after,
                         std::shared_ptr<attribution::Attributor> attributor, std::string prime_from,
                         live::HostSignalsOptions host)
    : attributor_(attributor) {
  // No alerts: opening cannot fail.
  auto opened = live::LiveSession::open(
      api, session_options(interval, stale_after, std::move(attributor), std::move(prime_from), std::move(host)));
  session_ = std::move(*opened);
}

void LocalSource::start() {
  if (attributor_) attributor_->start();
  session_->start();
  host_.start();
}

Model LocalSource::read() {
  // The diagnose engine ticks here, on the caller's thread, once per read (once per interval): no
  // thread of its own to wake every second, and it goes on while every sampling thread hangs in
  // NVML. It reads the samples copied below, with the model, in the same lock; no NVML call. The
  // finding lines show the previous tick's findings (the collector's diagnosis thread was as late).
  const auto findings = session_->findings();
  const auto host = host_.latest();
  Model model;
  std::set<std::uint32_t> pids;
  session_->with_view([&](const live::LiveView& view) {  // also copies what the diagnosis reads
    const core::Snapshot& snapshot = *view.snapshot;
    model.driver_version = snapshot.driver_version;
    if (snapshot.host) model.host_line = make_host_line_view(*snapshot.host);  // issue 25
    for (std::size_t i = 0; i < snapshot.devices.size() && i < view.status.size(); ++i) {
      model.gpus.push_back(make_gpu_view(snapshot.devices[i], view.status[i], findings));
    }
    tag_vendors(model.gpus);
    model.processes = make_process_views(snapshot, host, view.process_users);
    for (auto& p : model.processes) {
      if (auto owner = view.process_owners.find(p.pid); owner != view.process_owners.end() && !owner->second.empty()) {
        p.owner = owner->second.summary();
      }
    }
  });
  session_->tick_diagnosis(std::chrono::system_clock::now());
  model.ancestors = host_.latest_ancestors();
  for (const auto& p : model.processes) pids.insert(p.pid);
  host_.want(pids);
  return model;
}

bool LocalSource::stop() {
  host_.stop();
  return session_->stop(std::chrono::seconds(1));
}

}  // namespace gpuwatch::tui
