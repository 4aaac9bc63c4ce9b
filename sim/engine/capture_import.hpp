#pragma once
// `gpuwatch sim import`: real nvidia-smi captures -> scenario YAML. Each cell of a
// --query-gpu CSV goes, unit suffix removed, under its query name in the GPU's values,
// so replaying the scenario reproduces the captured values exactly.
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::sim {

enum class CaptureKind { QueryGpu, ComputeApps, QueryText, Unknown };
CaptureKind detect_capture_kind(std::string_view content);

struct CaptureFile {
  std::string label;    // path, for messages and the description
  std::string content;
};

struct CaptureImportOptions {
  // `--keep-time`: the scenario's `start_time` is the log's first timestamp and every GPU's rows
  // keep their offsets from it, so `sim record` renders at the log's own times (a log needs a
  // timestamp column).
  bool keep_time = false;
};

core::Result<std::string> import_capture_files(const std::vector<CaptureFile>& files,
                                               const CaptureImportOptions& options = {});

}  // namespace gpuwatch::sim
