#pragma once
// `record --csv FILE` / `--jsonl FILE`: plain-text logs beside (or instead of) the
// database, what the seed's nvidia-smi-to-CSV script did, done right:
//  * CSV files start with a header line ("time, index, utilization.gpu [%], ...");
//    appending to a file with another header is refused. JSONL lines carry their keys.
//  * Times are ISO-8601 with milliseconds and the zone; one row per GPU per sample.
//  * Never a partial row: each sample is ONE write(2) on an O_APPEND descriptor, and a
//    torn tail left by a crash (e.g. a full disk) is cut back to the last newline on open.
#include <memory>
#include <string>
#include <vector>

#include "cli/history_render.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::cli {

class SampleLog {
 public:
  // FORMAT: Csv or Jsonl. Creates the file (and its folder) if needed.
  static core::Result<std::unique_ptr<SampleLog>> open(const std::string& path, HistoryFormat format,
                                                       std::vector<core::FieldId> fields);
  ~SampleLog();
  SampleLog(const SampleLog&) = delete;
  SampleLog& operator=(const SampleLog&) = delete;

  core::Result<void> append(const core::Snapshot& snapshot);
  const std::string& path() const { return path_; }

 private:
  SampleLog(std::string path, int fd, HistoryFormat format, std::vector<core::FieldId> fields);
  std::string path_;
  int fd_;
  HistoryFormat format_;
  std::vector<core::FieldId> fields_;
};

}  // namespace gpuwatch::cli
