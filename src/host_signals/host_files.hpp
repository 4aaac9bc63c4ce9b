#pragma once
// The host signals' seam to the machine: small files under a host root ("/" on a real host,
// GPUWATCH_HOST_ROOT on the simulator). Production reads the real files (RootedHostFiles);
// tests give a fake tree. Paths are absolute as on the host ("/proc/stat").
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::host_signals {

class HostFiles {
 public:
  virtual ~HostFiles() = default;
  // The text of PATH, at most MAX_BYTES; nullopt when it is absent or cannot be read.
  virtual std::optional<std::string> read(const std::string& path, std::size_t max_bytes = 1 << 16) const = 0;
  // The names in folder PATH, sorted; nullopt when it cannot be listed.
  virtual std::optional<std::vector<std::string>> list(const std::string& path) const = 0;
};

// On the real root ("/"), the system's files (/proc/stat, PSI, meminfo, vmstat, diskstats,
// net/dev, the InfiniBand counters) are kept open and read again from offset 0: procfs and sysfs
// generate the text anew on a read at 0, and the open and close (inode and dentry work) were most of
// a host sample's cost (docs/performance.md, "Host signals"). Not a process's files (/proc/<pid>/...),
// which come and go. Under any other root (the simulator's, whose files are replaced by rename; a
// test's tree) every read opens the file.
class RootedHostFiles : public HostFiles {
 public:
  explicit RootedHostFiles(std::string root);
  ~RootedHostFiles() override;
  RootedHostFiles(const RootedHostFiles&) = delete;
  RootedHostFiles& operator=(const RootedHostFiles&) = delete;
  std::optional<std::string> read(const std::string& path, std::size_t max_bytes = 1 << 16) const override;
  std::optional<std::vector<std::string>> list(const std::string& path) const override;
  const std::string& root() const { return root_; }
  std::size_t open_files() const;  // kept open now (tests)

 private:
  std::string under_root(const std::string& path) const;
  bool keeps_open(const std::string& path) const;
  std::string root_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, int> open_;  // path -> descriptor kept open (the real root only)
};

// Where the host signals are read: HOST_ROOT when it has a /proc/stat, else "/". The simulator's
// host root (--simulate, `sim run`) holds /proc/modules and /dev but no /proc/stat until a
// scenario describes the host: the simulated GPUs then run on this machine, whose /proc is read.
std::string host_signals_root(const std::string& host_root);

}  // namespace gpuwatch::host_signals
