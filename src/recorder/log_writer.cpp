#include "recorder/log_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "store/database_path.hpp"

namespace gpuwatch::recorder {
namespace {

core::Error io_error(const std::string& what, const std::string& path) {
  return core::make_error("cannot " + what + " " + path + ": " + std::strerror(errno), 1);
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Appends TEXT whole or not at all: a failed write (a full disk: ENOSPC part way) is cut
// back to where the file ended before it, so no partial row is left behind while the
// recorder keeps running. errno is the write's.
bool append_whole(int fd, const std::string& text) {
  const off_t before = ::lseek(fd, 0, SEEK_END);  // the real end (O_APPEND writes there)
  if (write_all(fd, text)) return true;
  const int write_errno = errno;
  if (before >= 0 && ::ftruncate(fd, before) != 0) {
    // Nothing better to do: the torn tail is cut when the file is opened again.
  }
  errno = write_errno;
  return false;
}

// Reads the first line (without the newline), at most 64 KiB.
std::string first_line(int fd) {
  std::string buffer(65536, '\0');
  ssize_t n = ::pread(fd, buffer.data(), buffer.size(), 0);
  buffer.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return buffer.substr(0, buffer.find('\n'));
}

// Cuts a torn last line (no trailing newline) back to the last complete one.
bool drop_torn_tail(int fd, off_t size) {
  off_t end = size;
  char c = 0;
  while (end > 0) {
    if (::pread(fd, &c, 1, end - 1) != 1) return false;
    if (c == '\n') break;
    --end;
  }
  return end == size || ::ftruncate(fd, end) == 0;
}

}  // namespace

SampleLog::SampleLog(std::string path, int fd, history::HistoryFormat format, std::vector<core::FieldId> fields)
    : path_(std::move(path)), fd_(fd), format_(format), fields_(std::move(fields)) {}

SampleLog::~SampleLog() { ::close(fd_); }

core::Result<std::unique_ptr<SampleLog>> SampleLog::open(const std::string& path, history::HistoryFormat format,
                                                         std::vector<core::FieldId> fields, RotateOptions rotate) {
  if (auto ready = store::prepare_database_directory(path); !ready) return ready.error();
  // A symlink at PATH is never followed (issue 16: another user's link in a shared folder).
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 && errno == ELOOP) return core::make_error("cannot open " + path + ": it is a symbolic link (not followed)", 1);
  if (fd < 0) return io_error("open", path);
  std::unique_ptr<SampleLog> log(new SampleLog(path, fd, format, std::move(fields)));
  log->rotate_ = rotate;
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("read", path);
  if (!S_ISREG(st.st_mode)) return core::make_error("cannot log to " + path + ": not a regular file", 1);
  if (!drop_torn_tail(fd, st.st_size)) return io_error("repair the end of", path);
  if (::fstat(fd, &st) != 0) return io_error("read", path);
  log->size_ = st.st_size;
  if (st.st_size == 0) {
    if (auto started = log->start_file(); !started) return started.error();
  } else if (format == history::HistoryFormat::Csv) {
    std::string header = history::history_csv_header(log->fields_);
    if (first_line(fd) != header) {
      return core::make_error(path + " holds a log with other fields (its header differs): use another file", 1);
    }
    log->header_size_ = static_cast<std::int64_t>(header.size() + 1);
  }
  return log;
}

core::Result<void> SampleLog::start_file() {
  size_ = 0;
  header_size_ = 0;
  first_row_time_.reset();
  if (format_ == history::HistoryFormat::Csv) {
    std::string header = history::history_csv_header(fields_) + "\n";
    if (!append_whole(fd_, header)) return io_error("write", path_);
    size_ = header_size_ = static_cast<std::int64_t>(header.size());
  }
  return {};
}

bool SampleLog::rotation_due(std::size_t next_bytes, std::chrono::system_clock::time_point t) const {
  if (!rotate_.enabled() || size_ <= header_size_) return false;  // never rotate a file with no rows
  if (rotate_.max_bytes > 0 && size_ + static_cast<std::int64_t>(next_bytes) > rotate_.max_bytes) return true;
  return rotate_.max_age.count() > 0 && first_row_time_ && t - *first_row_time_ >= rotate_.max_age;
}

core::Result<void> SampleLog::rotate() {
  auto numbered = [this](int n) { return path_ + "." + std::to_string(n); };
  std::remove(numbered(std::max(rotate_.keep, 0) + 1).c_str());
  if (rotate_.keep <= 0) {
    std::remove(path_.c_str());
  } else {
    std::remove(numbered(rotate_.keep).c_str());
    for (int n = rotate_.keep - 1; n >= 1; --n) std::rename(numbered(n).c_str(), numbered(n + 1).c_str());
    if (std::rename(path_.c_str(), numbered(1).c_str()) != 0) return io_error("rotate", path_);
  }
  // A fresh file: O_EXCL, so nothing planted at PATH since the rename is followed or reused.
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return io_error("open", path_);
  ::close(fd_);
  fd_ = fd;
  return start_file();
}

core::Result<void> SampleLog::append(const core::Snapshot& snapshot) {
  std::string rows = history::history_rows(snapshot, fields_, format_);
  if (rows.empty()) return {};
  if (rotation_due(rows.size(), snapshot.timestamp)) {
    if (auto rotated = rotate(); !rotated) return rotated;
  }
  if (format_ == history::HistoryFormat::Csv && header_size_ == 0) {  // its header could not be written (disk full)
    if (auto started = start_file(); !started) return started;
  }
  if (!append_whole(fd_, rows)) return io_error("write", path_);
  size_ += static_cast<std::int64_t>(rows.size());
  if (!first_row_time_) first_row_time_ = snapshot.timestamp;
  return {};
}

}  // namespace gpuwatch::recorder
