#include "attribution/proc_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "attribution/cgroup_path.hpp"

namespace gpuwatch::attribution {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return text;
}

}  // namespace

ProcFiles read_proc_files(unsigned pid, const std::string& proc_root) {
  const std::string dir = proc_root + "/" + std::to_string(pid) + "/";
  ProcFiles files;
  files.cgroup = read_file(dir + "cgroup");
  files.environ = read_file(dir + "environ");
  files.status = read_file(dir + "status");
  if (auto stat = read_file(dir + "stat")) files.start_ticks = start_ticks_of_stat(*stat);
  return files;
}

// The check made for every cached PID at every sample: one open/read/close into a stack buffer
// (no stream, no allocation but the path), which keeps 200 processes well under 2 ms.
std::optional<std::uint64_t> read_proc_files_start_ticks(unsigned pid, const std::string& proc_root) {
  char path[512];
  int length = std::snprintf(path, sizeof path, "%s/%u/stat", proc_root.c_str(), pid);
  if (length <= 0 || static_cast<std::size_t>(length) >= sizeof path) return std::nullopt;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[1024];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return start_ticks_of_stat(std::string_view(buffer, static_cast<std::size_t>(n)));
}

std::optional<std::uint64_t> start_ticks_of_stat(std::string_view stat_line) {
  auto close = stat_line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat_line.substr(close + 1);
  // Fields after the command are 3 (state) onwards; starttime is field 22.
  for (int index = 3;; ++index) {
    auto begin = rest.find_first_not_of(' ');
    if (begin == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(begin);
    auto end = rest.find_first_of(" \n");
    std::string_view field = rest.substr(0, end);
    if (index == 22) {
      std::uint64_t value = 0;
      auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
      if (ec != std::errc() || ptr != field.data() + field.size()) return std::nullopt;
      return value;
    }
    if (end == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(end);
  }
}

std::optional<unsigned> namespace_pid_of_status(const std::string& status) {
  auto at = status.find("\nNSpid:");
  if (at == std::string::npos) {
    if (status.rfind("NSpid:", 0) != 0) return std::nullopt;
    at = 0;
  } else {
    ++at;
  }
  auto end = status.find('\n', at);
  std::istringstream line(status.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6));
  unsigned pid = 0, last = 0, count = 0;
  while (line >> pid) {
    last = pid;
    ++count;
  }
  if (count < 2) return std::nullopt;  // not in a nested PID namespace
  return last;
}

EnvironFacts environ_facts_of(const ProcFiles& files) {
  return files.environ ? parse_environ(*files.environ) : EnvironFacts{};
}

Attribution attribution_of_files(const ProcFiles& files) {
  Attribution out = files.cgroup ? parse_cgroup_file(*files.cgroup) : Attribution{};
  EnvironFacts env = environ_facts_of(files);
  if (!out.slurm_job_id && env.slurm_job_id) out.slurm_job_id = env.slurm_job_id;
  if (!out.slurm_step && env.slurm_step_id && out.slurm_job_id == env.slurm_job_id) out.slurm_step = env.slurm_step_id;
  if (env.slurm_job_user && out.slurm_job_id) out.slurm_user = env.slurm_job_user;  // a name beats the cgroup's uid
  if (files.status) out.container_pid = namespace_pid_of_status(*files.status);
  return out;
}

}  // namespace gpuwatch::attribution
