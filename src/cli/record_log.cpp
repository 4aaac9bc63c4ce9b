#include "cli/record_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/record_paths.hpp"

namespace gpuwatch::cli {
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

SampleLog::SampleLog(std::string path, int fd, HistoryFormat format, std::vector<core::FieldId> fields)
    : path_(std::move(path)), fd_(fd), format_(format), fields_(std::move(fields)) {}

SampleLog::~SampleLog() { ::close(fd_); }

core::Result<std::unique_ptr<SampleLog>> SampleLog::open(const std::string& path, HistoryFormat format,
                                                         std::vector<core::FieldId> fields) {
  if (auto ready = prepare_database_directory(path); !ready) return ready.error();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("open", path);
  std::unique_ptr<SampleLog> log(new SampleLog(path, fd, format, std::move(fields)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("read", path);
  if (!drop_torn_tail(fd, st.st_size)) return io_error("repair the end of", path);
  if (format == HistoryFormat::Csv) {
    std::string header = history_csv_header(log->fields_);
    if (st.st_size == 0) {
      if (!write_all(fd, header + "\n")) return io_error("write", path);
    } else if (first_line(fd) != header) {
      return core::make_error(path + " holds a log with other fields (its header differs): use another file", 1);
    }
  }
  return log;
}

core::Result<void> SampleLog::append(const core::Snapshot& snapshot) {
  std::string rows = history_rows(snapshot, fields_, format_);
  if (rows.empty()) return {};
  if (!write_all(fd_, rows)) return io_error("write", path_);
  return {};
}

}  // namespace gpuwatch::cli
