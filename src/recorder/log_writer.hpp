#pragma once
// `record --csv FILE` / `--jsonl FILE`: plain-text logs beside (or instead of) the
// database, what the seed's nvidia-smi-to-CSV script did, done right:
//  * CSV files start with a header line ("time, index, utilization.gpu [%], ...");
//    appending to a file with another header is refused. JSONL lines carry their keys.
//  * Times are ISO-8601 with milliseconds and the zone; one row per GPU per sample.
//  * Never a partial row: each sample is ONE write(2) on an O_APPEND descriptor; a write
//    that fails part way (a full disk) is cut back at once (ftruncate to the old end), and
//    a torn tail left by a crash is cut back to the last newline on open.
//  * Rotation (RotateOptions): before a sample that would take the file past max_bytes,
//    or once the file's first row is max_age old (by the samples' own times), FILE is
//    renamed FILE.1 (FILE.1 -> FILE.2, ...; beyond FILE.<keep> are deleted) and a new
//    FILE is started with its header. Rotation happens only between samples.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "history/render.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::recorder {

struct RotateOptions {
  std::int64_t max_bytes = 0;            // 0: no size limit
  std::chrono::milliseconds max_age{0};  // 0: no age limit
  int keep = 5;                          // rotated files kept (FILE.1 .. FILE.<keep>)
  bool enabled() const { return max_bytes > 0 || max_age.count() > 0; }
};

class SampleLog {
 public:
  // FORMAT: Csv or Jsonl. Creates the file (and its folder) if needed.
  static core::Result<std::unique_ptr<SampleLog>> open(const std::string& path, history::HistoryFormat format,
                                                       std::vector<core::FieldId> fields, RotateOptions rotate = {});
  ~SampleLog();
  SampleLog(const SampleLog&) = delete;
  SampleLog& operator=(const SampleLog&) = delete;

  core::Result<void> append(const core::Snapshot& snapshot);
  const std::string& path() const { return path_; }

 private:
  SampleLog(std::string path, int fd, history::HistoryFormat format, std::vector<core::FieldId> fields);
  core::Result<void> start_file();  // header of a new (empty) file; sizes
  core::Result<void> rotate();
  bool rotation_due(std::size_t next_bytes, std::chrono::system_clock::time_point t) const;
  std::string path_;
  int fd_;
  RotateOptions rotate_;
  std::int64_t size_ = 0, header_size_ = 0;
  std::optional<std::chrono::system_clock::time_point> first_row_time_;
  history::HistoryFormat format_;
  std::vector<core::FieldId> fields_;
};

}  // namespace gpuwatch::recorder
