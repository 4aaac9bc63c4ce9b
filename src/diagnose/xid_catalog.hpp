#pragma once
// What an Xid means and whether an operator should act (after NVIDIA's Xid catalog and the
// Xids DCGM's policy watches). Xids do not appear in a core::Snapshot: they arrive as NVML
// events (live/xid_watcher.hpp), and are fed to Diagnoser::observe_xid().
#include <cstdint>
#include <string_view>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

struct XidInfo {
  std::string_view meaning;  // "MMU fault (illegal address in a kernel)"
  Severity severity;         // info: the application's own fault; warning/critical: the GPU's
  std::string_view action;   // what to do
};

// Known Xids; an unknown one is a warning "see NVIDIA's Xid catalog".
XidInfo xid_info(std::uint64_t xid);

}  // namespace gpuwatch::diagnose
