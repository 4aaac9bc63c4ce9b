#pragma once
// Test support: core::Snapshots built from the simulator engine's evaluated state at a
// virtual time (no driver, no wall clock), the way the sampler would read them: values in
// base units, NOT_SUPPORTED keys absent, processes with their memory, lost GPUs Lost, GPM
// SM activity on Hopper. Scenario time is used as is (time_scale does not apply), so a
// scenario's phases keep their lengths in seconds.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"
#include "diagnose/window_diagnosis.hpp"
#include "sim/engine/gpm_model.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::diagnose::testing {

inline constexpr std::int64_t kEpochS = 1'790'000'000;  // scenario time 0

inline std::chrono::system_clock::time_point at_s(double t) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(kEpochS + t)));
}

// Display units (as the scenario writes them) -> the field's base unit.
inline double to_base(core::Display display, double x) {
  switch (display) {
    case core::Display::MiB: return x * 1048576.0;
    case core::Display::MHz: return x * 1e6;
    case core::Display::Percent:
    case core::Display::Percent2: return x / 100.0;
    case core::Display::Microseconds: return x * 1e-6;
    case core::Display::Milliseconds: return x * 1e-3;
    case core::Display::KBps: return x * 1024.0;
    default: return x;
  }
}

class SimFeed {
 public:
  explicit SimFeed(const sim::Scenario& scenario) : sim_(scenario, pids_for(scenario)) {
    for (unsigned g = 0; g < sim_.gpu_count(); ++g) statics_.push_back(static_device(g));
  }

  static SimFeed builtin(const std::string& name) {
    auto sc = sim::load_scenario(name);
    if (!sc) throw std::runtime_error(sc.error().message);
    return SimFeed(*sc);
  }
  static SimFeed yaml(const std::string& text) {
    auto sc = sim::parse_scenario(text, "test.yaml", "");
    if (!sc) throw std::runtime_error(sc.error().message);
    return SimFeed(*sc);
  }

  const sim::Simulation& simulation() const { return sim_; }
  std::size_t gpu_count() const { return sim_.gpu_count(); }

  core::Snapshot snapshot(double t, double interval_s = 1.0) const {
    core::Snapshot s;
    s.timestamp = at_s(t);
    s.device_count = static_cast<unsigned>(sim_.gpu_count());
    for (unsigned g = 0; g < sim_.gpu_count(); ++g) s.devices.push_back(device(g, t, interval_s));
    return s;
  }

  // Xid events of every GPU up to scenario time T.
  std::vector<XidEvent> xids_until(double t) const {
    std::vector<XidEvent> out;
    for (unsigned g = 0; g < sim_.gpu_count(); ++g)
      for (const auto& e : sim_.events(g))
        if (e.type == 0x8 && e.at_s <= t) out.push_back({g, e.data, at_s(e.at_s)});
    return out;
  }

  // Snapshots every INTERVAL_S from FROM_S to TO_S, diagnosed as one window (Xids merged).
  std::vector<Finding> diagnose(double to_s, double interval_s = 1.0, double from_s = 0) const {
    std::vector<core::Snapshot> snaps;
    for (double t = from_s; t <= to_s; t += interval_s) snaps.push_back(snapshot(t, interval_s));
    auto xids = xids_until(to_s);
    return diagnose_window(snaps, xids);
  }

 private:
  // Every scenario process gets a PID (stand-ins are not started in tests).
  static sim::PidSources pids_for(const sim::Scenario& sc) {
    sim::PidSources pids;
    for (int g = 0; g < static_cast<int>(sc.gpus.size()); ++g) {
      int index = 0;
      std::size_t n = sc.gpus[g].processes.size();
      for (const auto& inst : sc.gpus[g].mig) n += inst.processes.size();
      for (std::size_t p = 0; p < n; ++p, ++index) pids.standins[{g, index}] = static_cast<unsigned>(4000 + g * 10 + index);
    }
    return pids;
  }

  static void put(core::DeviceSnapshot& d, sim::Key key, const sim::Value& v) {
    auto id = core::find_field(sim::key_info(key).name);
    if (!id) return;
    const auto& info = core::field_info(*id);
    auto& r = d.get(*id);
    if (v.is_number()) {
      r = core::FieldReading::of(to_base(info.display, v.number));
    } else if (v.kind == sim::Value::Kind::Text) {
      const std::string& t = v.text;
      if (t == "Yes" || t == "Enabled" || t == "Active") r = core::FieldReading::of(true);
      else if (t == "No" || t == "Disabled" || t == "Not Active") r = core::FieldReading::of(false);
      else if (t.size() >= 2 && t[0] == 'P' && std::isdigit(static_cast<unsigned char>(t[1]))) r = core::FieldReading::of(std::atof(t.c_str() + 1));
      else r = core::FieldReading::of(t);
    } else if (v.is_error()) {
      const core::ErrorReason reason = v.error == 0   ? core::ErrorReason::None
                                       : v.error == 3 ? core::ErrorReason::NotSupported
                                                      : core::ErrorReason::Other;
      r = core::FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{reason, v.error});
    }
  }

  core::DeviceSnapshot static_device(unsigned g) const {
    core::DeviceSnapshot d;
    d.index = g;
    for (std::size_t k = 0; k < sim::kKeyCount; ++k) put(d, static_cast<sim::Key>(k), sim_.static_value(g, static_cast<sim::Key>(k)));
    return d;
  }

  core::DeviceSnapshot device(unsigned g, double t, double interval_s) const {
    sim::DynamicSample ds;
    sim_.evaluate(g, t, ds);
    if (ds.lost) {
      core::DeviceSnapshot lost;
      lost.index = g;
      lost.state = core::DeviceState::Lost;
      lost.error = {core::ErrorReason::GpuLost, 15};
      return lost;
    }
    core::DeviceSnapshot d = statics_[g];
    for (std::size_t k = 0; k < sim::kKeyCount; ++k) {
      if (!ds.has.test(k)) continue;
      auto id = core::find_field(sim::key_info(static_cast<sim::Key>(k)).name);
      if (!id) continue;
      auto& r = d.get(*id);
      if (r.status == core::FieldStatus::NotSupported) continue;  // an error value stays an error
      r = core::FieldReading::of(to_base(core::field_info(*id).display, ds.num[k]));
    }
    if (sim::gpm_supported(sim_, g) && t > 0) {
      auto a = sim::gpm_average(sim_, g, -1, std::max(0.0, t - interval_s), t);
      d.get(core::FieldId::GpmSmActive) = core::FieldReading::of(a.sm / 100.0);
    }
    d.processes_status = core::FieldStatus::Ok;
    for (const auto& p : ds.processes) {
      core::ProcessSample ps;
      ps.pid = p.pid;
      if (const std::string* name = sim_.process_name(p.pid)) ps.name = *name;
      ps.used_memory_bytes = static_cast<std::uint64_t>(p.memory_mib * 1048576.0);
      ps.type = p.compute && p.graphics ? core::ProcessType::ComputeAndGraphics
                : p.graphics            ? core::ProcessType::Graphics
                                        : core::ProcessType::Compute;
      d.processes.push_back(std::move(ps));
    }
    return d;
  }

  sim::Simulation sim_;
  std::vector<core::DeviceSnapshot> statics_;
};

}  // namespace gpuwatch::diagnose::testing
