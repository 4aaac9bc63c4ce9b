#pragma once
// Which PIDs belong to a job: the command's process and every descendant (workers that fork
// their own workers count). Membership is decided by walking parent links up from a PID until a
// root is met; the links come from a function (reading /proc at the edge: read_parent_pid), so
// the logic is pure. A PID once seen inside stays inside (its parent may exit and the kernel
// re-parents it to gpuwatch, the job's subreaper, which is a root too).
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

namespace gpuwatch::jobs {

using ParentOf = std::function<std::optional<std::uint32_t>(std::uint32_t pid)>;

class ProcessTree {
 public:
  // ROOTS: the command's PID (and gpuwatch's own when it is the subreaper); ROOTS themselves are members.
  // EXCLUDED: PIDs (and their descendants) that are never members: gpuwatch's other children, such as
  // the simulated driver's stand-in processes, which a walk would otherwise reach the subreaper from.
  ProcessTree(std::set<std::uint32_t> roots, ParentOf parent_of, std::set<std::uint32_t> excluded = {})
      : roots_(std::move(roots)), excluded_(std::move(excluded)), parent_of_(std::move(parent_of)) {}

  // Walks PID's parent links (at most 256 steps); true when a root or a known member is met.
  bool contains(std::uint32_t pid);
  const std::set<std::uint32_t>& members() const { return members_; }  // the non-root members seen

 private:
  std::set<std::uint32_t> roots_, excluded_;
  ParentOf parent_of_;
  std::set<std::uint32_t> members_;
};

// The parent PID in the text of /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold
// spaces and parentheses, so the last ')' ends it). nullopt when the text has none.
std::optional<std::uint32_t> parent_pid_from_stat(const std::string& stat_text);

// Reads PROC_ROOT/PID/stat: the edge ProcessTree's parent_of uses. nullopt when the process is gone.
std::optional<std::uint32_t> read_parent_pid(std::uint32_t pid, const std::string& proc_root = "/proc");

// The PIDs whose parent is PARENT now (a scan of PROC_ROOT/*/stat).
std::set<std::uint32_t> read_children(std::uint32_t parent, const std::string& proc_root = "/proc");

}  // namespace gpuwatch::jobs
