#pragma once
// This machine's GPUs: a live session (live/live_session.hpp: one sampling thread for every GPU, a
// hung one moved to its own; stale detection; the diagnose engine on the latest samples, ticked by
// read()), and a HostPoller for /proc. read() takes the collector's lock only to copy the latest
// samples.
#include <chrono>
#include <memory>

#include "live/live_session.hpp"
#include "backend/device_backend.hpp"
#include "tui/data_source.hpp"
#include "tui/host_poller.hpp"

namespace gpuwatch::tui {

class LocalSource : public DataSource {
 public:
  // STALE_AFTER 0: the collector's default (3 intervals + 2 s). ATTRIBUTOR (may be null: off):
  // each process's container, pod or Slurm job (the OWNER column). PRIME_FROM: the history database
  // the diagnose engine starts from (history/live_priming.hpp); "": afresh. HOST: the host signals
  // (issue 25: the host line; off by default, `top --no-host` keeps them off).
  LocalSource(const backend::DeviceBackend& api, std::chrono::milliseconds interval, std::chrono::milliseconds stale_after = {},
              std::shared_ptr<attribution::Attributor> attributor = nullptr, std::string prime_from = {},
              live::HostSignalsOptions host = {});
  void start() override;
  // Also runs the diagnose engine once (the finding lines): call it once per interval.
  Model read() override;
  void want_ancestors(bool on) override { host_.want_ancestors(on); }
  bool stop() override;

 private:
  std::shared_ptr<attribution::Attributor> attributor_;
  std::unique_ptr<live::LiveSession> session_;  // its diagnosis has no thread: read() ticks it
  HostPoller host_;
};

}  // namespace gpuwatch::tui
