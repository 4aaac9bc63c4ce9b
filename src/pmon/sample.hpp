#pragma once
// Snapshot -> pmon rows (pure): one row per process, in the order NVML lists them,
// or a single "-" row for a GPU without processes (as nvidia-smi prints).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pmon/format.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::pmon {

// Name lookup for processes NVML gives no name for (reads /proc/<pid>/comm in
// production); may return nullopt.
using ProcessNameLookup = std::function<std::optional<std::string>(unsigned pid)>;

std::vector<PmonRow> pmon_rows(const core::Snapshot& snapshot, const ProcessNameLookup& lookup);

}  // namespace gpuwatch::pmon
