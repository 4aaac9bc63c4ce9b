#pragma once
// The Xid families (counts from live/xid_watcher.hpp, in LiveView::xid_events).
// A series appears with its first event and stays while the GPU is down: Xids arrive
// exactly when sampling fails. Nothing is written when no Xid was seen.
#include <string>
#include <vector>

#include "live/view.hpp"

namespace gpuwatch::exporter {

// gpuwatch_xid_errors_total{gpu,uuid,xid} and gpuwatch_xid_last_timestamp_seconds{gpu,uuid,xid}.
// LABELS[i] is GPU i's `gpu="i",uuid="..."` label list.
void encode_xid_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);
// nvidia_gpu_exporter's nvidia_smi_xid_errors_total{uuid,xid} and
// nvidia_smi_xid_last_timestamp_seconds{uuid,xid}; LABELS[i] is GPU i's `uuid="..."`.
void encode_xid_nvidia_smi(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

}  // namespace gpuwatch::exporter
