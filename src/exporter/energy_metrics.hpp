#pragma once
// gpuwatch_energy_joules_total{gpu,uuid,source} (issue 29): the energy each GPU used, in joules.
//   source="counter":   the driver's counter (field energy.total, read by src/nvml/),
//                       since the driver was loaded;
//   source="estimated": where the GPU has no such counter (not supported), power.draw integrated over
//                       gpuwatch's samples since it started (live/energy_integrator.hpp), not across a
//                       gap longer than the stale limit or while the GPU is lost.
// A GPU that is not up, or whose counter read failed this sample, gets no series; so does one
// with neither a counter nor a power reading (absent stays absent).
#include <string>
#include <vector>

#include "live/view.hpp"

namespace gpuwatch::exporter {

// LABELS[i] is GPU i's `gpu="i",uuid="..."` label list.
void encode_energy_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

}  // namespace gpuwatch::exporter
