#pragma once
// The doctor's seam to the machine: files under a host root, and the environment. Production
// reads the real files (RootedSystemView, with "/" or the simulated host of `sim run`:
// GPUWATCH_HOST_ROOT); tests give a fake. Paths are absolute as on the host ("/proc/modules").
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::doctor {

class SystemView {
 public:
  virtual ~SystemView() = default;
  // The root the paths are read under ("/" on a real host).
  virtual std::string root() const = 0;
  // The text of PATH, at most MAX_BYTES; nullopt when it is absent or cannot be read.
  virtual std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  // The names in folder PATH; nullopt when it cannot be listed.
  virtual std::optional<std::vector<std::string>> list(const std::string& path) const = 0;
  // Whether PATH's mode bits let this user read and write it; nullopt when it is absent.
  virtual std::optional<bool> read_writable(const std::string& path) const = 0;
  // An environment variable; nullopt when unset.
  virtual std::optional<std::string> env(const std::string& name) const = 0;
  // `journalctl -k` lines mentioning NVRM (a real host only, bounded in time); nullopt: none to ask.
  virtual std::optional<std::string> kernel_journal() const = 0;
};

// The machine's files under ROOT ("/" or a simulated host), the process environment.
class RootedSystemView : public SystemView {
 public:
  explicit RootedSystemView(std::string root);
  std::string root() const override { return root_; }
  std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) const override;
  bool exists(const std::string& path) const override;
  std::optional<std::vector<std::string>> list(const std::string& path) const override;
  std::optional<bool> read_writable(const std::string& path) const override;
  std::optional<std::string> env(const std::string& name) const override;
  std::optional<std::string> kernel_journal() const override;

 private:
  std::string under_root(const std::string& path) const;
  std::string root_;
};

// The host root for this process: GPUWATCH_HOST_ROOT (set by `sim run` and --simulate) or "/".
std::string host_root_from_environment();

}  // namespace gpuwatch::doctor
