#pragma once
// This machine's GPUs: the exporter's Collector (one sampling thread for every GPU, a hung one
// moved to its own; stale detection), the diagnose engine on the latest samples, and a HostPoller
// for /proc. read() takes the collector's lock only to copy the latest samples.
#include <chrono>
#include <memory>

#include "live/collector.hpp"
#include "live/live_diagnosis.hpp"
#include "nvml/nvml_api.hpp"
#include "tui/data_source.hpp"
#include "tui/host_poller.hpp"

namespace gpuwatch::tui {

class LocalSource : public DataSource {
 public:
  // STALE_AFTER 0: the collector's default (3 intervals + 2 s). ATTRIBUTOR (may be null: off):
  // each process's container, pod or Slurm job (the OWNER column). PRIMED: the diagnose engine to
  // start from (history/live_priming.hpp: fed the recorded history).
  LocalSource(const nvml::NvmlApi& api, std::chrono::milliseconds interval, std::chrono::milliseconds stale_after = {},
              std::shared_ptr<attribution::Attributor> attributor = nullptr, diagnose::Diagnoser primed = {});
  void start() override;
  // Also runs the diagnose engine once (the finding lines): call it once per interval.
  Model read() override;
  void want_ancestors(bool on) override { host_.want_ancestors(on); }
  bool stop() override;

 private:
  std::shared_ptr<attribution::Attributor> attributor_;
  live::Collector collector_;
  HostPoller host_;
  live::DiagnosisInput diagnosis_input_;  // read() copies it from the collector for the tick
  live::LiveDiagnosis diagnosis_;  // never started: read() ticks it
};

}  // namespace gpuwatch::tui
