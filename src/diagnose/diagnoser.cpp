#include "diagnose/diagnoser.hpp"

#include <algorithm>

#include "diagnose/check_context.hpp"
#include "diagnose/imbalance_check.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::diagnose {

void Diagnoser::observe(const core::Snapshot& snapshot) {
  const double t_s = to_seconds(snapshot.timestamp);
  if (t_s < last_t_s_) return;
  last_t_s_ = t_s;
  // Three passes: every GPU's sample into its windows, then the job-level checks (they set what
  // the per-GPU checks must not say again), then the per-GPU checks.
  extract_host(snapshot.host.get(), host_);
  held_.clear();
  for (const auto& device : snapshot.devices) {
    take_sample(device, t_s);
    const GpuState& st = gpus_[device.index];
    if (st.sample.readable && st.sample.held()) held_.push_back(device.index);
  }
  jobs_.assign(gpus_, t_s);
  check_collective_hang(tracker_, gpus_, jobs_.jobs(), t_s);
  check_imbalance(tracker_, gpus_, jobs_.jobs(), t_s, imbalance_keys_);
  check_comm_bound(tracker_, gpus_, jobs_.jobs(), host_, t_s, comm_);
  check_host_memory_pressure(tracker_, host_memory_, host_, held_, t_s);
  for (const auto& device : snapshot.devices) check_device(device.index);
}

void Diagnoser::identify(std::uint32_t pid, ProcessIdentity identity) { jobs_.identify(pid, std::move(identity)); }

void Diagnoser::take_sample(const core::DeviceSnapshot& device, double t_s) {
  GpuState& st = gpus_[device.index];
  extract(device, t_s, st.sample);
  ++samples_;
  if (st.sample.vendor != st.vendor || !st.vendor_set) {
    st.vendor = st.sample.vendor;
    st.vendor_set = true;
    tracker_.set_vendor(device.index, st.vendor);
  }
  if (st.sample.uuid && *st.sample.uuid != st.uuid) {
    st.uuid = *st.sample.uuid;
    tracker_.set_uuid(device.index, st.uuid);
  }
  CheckContext c{tracker_, st, st.sample};
  check_lost(c);
  if (!st.sample.readable) {
    // A lost (or inaccessible) GPU says nothing about its load: end what was measured on it,
    // keep the hardware findings (they explain the loss).
    tracker_.end_gpu(device.index, t_s, {Kind::GpuLost, Kind::Xid, Kind::EccUncorrectable, Kind::RowRemap,
                                         Kind::RecoveryAction, Kind::CollectiveHang});
    st.have_prev = false;
    check_xids(tracker_, st, device.index, t_s);
    return;
  }
  record_sample(st);
  record_host(st, host_);
}

void Diagnoser::check_device(unsigned index) {
  GpuState& st = gpus_[index];
  if (!st.sample.readable) return;
  CheckContext c{tracker_, st, st.sample};
  check_utilization(c);
  check_throttling(c);
  check_memory(c);
  check_hardware(c);
}

void Diagnoser::observe_xid(unsigned gpu, std::uint64_t xid, std::chrono::system_clock::time_point at) {
  const double t_s = to_seconds(at);
  GpuState& st = gpus_[gpu];
  XidRecord& rec = st.xids[xid];
  if (rec.count == 0) rec.first_s = t_s;
  ++rec.count;
  rec.last_s = std::max(rec.last_s, t_s);
  check_xids(tracker_, st, gpu, std::max(t_s, last_t_s_));
}

std::vector<Finding> Diagnoser::findings() const { return tracker_.active(); }

std::vector<Finding> Diagnoser::findings_for(unsigned gpu) const {
  std::vector<Finding> out;
  for (auto& f : tracker_.active())
    if (std::find(f.gpus.begin(), f.gpus.end(), gpu) != f.gpus.end()) out.push_back(std::move(f));
  return out;
}

std::vector<Finding> Diagnoser::all_findings() const { return tracker_.all(); }

}  // namespace gpuwatch::diagnose
