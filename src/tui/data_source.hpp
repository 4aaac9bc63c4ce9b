#pragma once
// Where top's data comes from. read() never blocks on a GPU or a host: sampling runs on the
// source's own threads, and read() copies their latest results (a hung GPU shows as stale, a
// dead host as down). LocalSource (local_source.hpp) is this machine, through the exporter's
// Collector; with --connect, remote hosts come through their serve JSON API.
#include "tui/model.hpp"

namespace gpuwatch::tui {

class DataSource {
 public:
  virtual ~DataSource() = default;
  virtual void start() = 0;
  // The latest GPUs and processes. Called once per interval (paused too): a source may do its
  // per-interval work here (LocalSource runs the diagnose engine).
  virtual Model read() = 0;
  // The tree view is on: also read the host processes above the GPU processes (Model::ancestors).
  // A source that cannot (another host's serve) ignores it.
  virtual void want_ancestors(bool) {}
  // False when a sampling thread is still stuck (in NVML): the caller must exit without unloading it.
  virtual bool stop() = 0;
};

}  // namespace gpuwatch::tui
