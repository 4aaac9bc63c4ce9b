// Atomic replacement of a simulated tree's files (atomic_file_writer.hpp).
#include "sim/engine/atomic_file_writer.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace gpuwatch::sim {

namespace fs = std::filesystem;

namespace atomic_file_writer_detail {

// The same file as when it was written: another process's rename puts a new inode there (and a
// freed inode number may come back: the size and modification time must match too).
bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_dev == b.st_dev && a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace atomic_file_writer_detail

using atomic_file_writer_detail::same_file;

bool AtomicFileWriter::write(const fs::path& path, const std::string& content) {
  // A temporary name in the same folder, renamed over the file. The name is unique per process
  // and write (several processes render the same tree).
  const fs::path dir = path.parent_path();
  const auto last = written_.find(path);
  struct stat now {};
  if (last != written_.end() && last->second.content == content && ::stat(path.c_str(), &now) == 0 &&
      same_file(now, last->second.file))
    return true;
  const fs::path temp = dir / fmt::format(".{}.{}.{}.tmp", path.filename().string(), ::getpid(), ++temp_counter_);
  int fd = -1;
  for (int attempt = 0; attempt < 2 && fd < 0; ++attempt) {
    if (!directories_.contains(dir)) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) return false;
      directories_.insert(dir);
    }
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 && errno != ENOENT) return false;
    if (fd < 0) directories_.erase(dir);  // the folder went away: make it again
  }
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  struct stat file {};
  const bool stated = ::fstat(fd, &file) == 0;
  const bool written = ::close(fd) == 0 && done == content.size();
  if (!written || ::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    written_.erase(path);
    return false;
  }
  if (stated) written_[path] = WrittenFile{content, file};
  else written_.erase(path);
  return true;
}

void AtomicFileWriter::remove(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  const std::string prefix = path.string() + "/";
  auto under = [&](const fs::path& p) { return p == path || p.string().rfind(prefix, 0) == 0; };
  std::erase_if(written_, [&](const auto& entry) { return under(entry.first); });
  std::erase_if(directories_, [&](const fs::path& p) { return under(p); });
}

}  // namespace gpuwatch::sim
