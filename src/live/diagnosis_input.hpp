#pragma once
// The one way to build what a diagnose tick reads (DiagnosisInput), for serve's collector thread
// (Collector, from its slots) and for top (tui/LocalSource, from the view it copied): the GPUs
// with a sample, how old each one's is and whether it is stale, the Xid counts. Pure.
#include <optional>
#include <vector>

#include "live/live_diagnosis.hpp"

namespace gpuwatch::live {

// LATEST: the collector's latest samples, in index order. SAMPLE_AGE_S: per GPU, in index order
// (no further than LATEST's devices), how old its latest sample is; nullopt when it has none yet.
DiagnosisInput make_diagnosis_input(const core::Snapshot& latest, const std::vector<std::optional<double>>& sample_age_s,
                                    double stale_after_s, std::vector<XidCount> xids);

}  // namespace gpuwatch::live
