#include "sim_session/standin_process.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/core.h>
#include <fstream>
#include <iterator>
#include <linux/close_range.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuwatch::sim_session {

namespace {

constexpr int kReadyTimeoutMs = 5000;

struct StandinTicket {
  pid_t parent = 0;
  int ready_fd = -1;
};

bool parse_ticket(const char* text, StandinTicket& ticket) {
  if (text == nullptr) return false;
  char* end = nullptr;
  const long parent = std::strtol(text, &end, 10);
  if (end == text || *end != ':') return false;
  const char* fd_text = end + 1;
  const long fd = std::strtol(fd_text, &end, 10);
  if (end == fd_text || *end != '\0' || parent <= 0 || fd < 0) return false;
  ticket.parent = static_cast<pid_t>(parent);
  ticket.ready_fd = static_cast<int>(fd);
  return true;
}

std::string own_argv0() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string first;
  std::getline(in, first, '\0');
  return first;
}

// Everything the child needs, built before fork() so the child only makes system calls.
struct ExecImage {
  std::vector<std::string> strings;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

ExecImage make_exec_image(const std::vector<std::string>& command_line, const std::string& ticket) {
  ExecImage image;
  image.strings = command_line;
  if (image.strings.empty()) image.strings.push_back("process");
  const size_t argc = image.strings.size();
  const std::string prefix = std::string(kStandinEnv) + "=";
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) image.strings.emplace_back(*e);
  }
  image.strings.push_back(prefix + ticket);
  for (size_t i = 0; i < image.strings.size(); ++i) {
    (i < argc ? image.argv : image.envp).push_back(image.strings[i].data());
  }
  image.argv.push_back(nullptr);
  image.envp.push_back(nullptr);
  return image;
}

[[noreturn]] void become_standin(const char* executable, const ExecImage& image, pid_t parent, int ready_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the parent died before the line above
  ::setpgid(0, 0);                        // terminal signals (Ctrl-C) are for the real command
  const int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    ::dup2(devnull, STDIN_FILENO);
    ::dup2(devnull, STDOUT_FILENO);
    ::dup2(devnull, STDERR_FILENO);
  }
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // keep nothing of the parent's but the ready pipe
  ::fcntl(ready_fd, F_SETFD, 0);
  ::execve(executable, image.argv.data(), image.envp.data());
  ::_exit(127);
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

bool standin_requested() { return std::getenv(kStandinEnv) != nullptr; }

void run_standin() {
  StandinTicket ticket;
  if (!parse_ticket(std::getenv(kStandinEnv), ticket)) ::_exit(2);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // kept across exec, set again in case
  if (::getppid() != ticket.parent) ::_exit(0);
  const std::string argv0 = own_argv0();
  const auto slash = argv0.rfind('/');
  const std::string name = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  ::prctl(PR_SET_NAME, name.c_str());  // `ps -o comm` and psutil's name() show it
  const char ready = 'R';
  if (::write(ticket.ready_fd, &ready, 1) != 1) ::_exit(1);
  ::close(ticket.ready_fd);
  for (;;) ::pause();
}

StandinGroup::~StandinGroup() { stop(); }

void StandinGroup::stop() {
  for (const int pid : pids_) kill_and_reap(pid);
  pids_.clear();
}

core::Result<std::vector<int>> StandinGroup::start(const std::vector<std::vector<std::string>>& command_lines,
                                                    const std::filesystem::path& executable) {
  std::vector<int> started;
  for (const auto& command_line : command_lines) {
    auto pid = start_one(command_line, executable);
    if (!pid) {
      stop();
      return pid.error();
    }
    pids_.push_back(*pid);
    started.push_back(*pid);
  }
  return started;
}

core::Result<int> StandinGroup::start_one(const std::vector<std::string>& argv,
                                          const std::filesystem::path& executable) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return core::make_error(fmt::format("cannot start a stand-in process: pipe: {}", std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  const ExecImage image = make_exec_image(argv, fmt::format("{}:{}", parent, pipe_fds[1]));
  const std::string exe = executable.string();
  const pid_t pid = ::fork();
  if (pid == 0) become_standin(exe.c_str(), image, parent, pipe_fds[1]);
  const int fork_errno = errno;
  ::close(pipe_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    return core::make_error(fmt::format("cannot start a stand-in process: fork: {}", std::strerror(fork_errno)));
  }
  pollfd waiter{pipe_fds[0], POLLIN, 0};
  int polled = 0;
  do {
    polled = ::poll(&waiter, 1, kReadyTimeoutMs);
  } while (polled < 0 && errno == EINTR);
  char ready = 0;
  const bool ok = polled == 1 && ::read(pipe_fds[0], &ready, 1) == 1 && ready == 'R';
  ::close(pipe_fds[0]);
  if (!ok || ::kill(pid, 0) != 0) {
    kill_and_reap(pid);
    return core::make_error(fmt::format("stand-in process for '{}' did not start ({} did not answer as a stand-in)",
                                        argv.empty() ? "" : argv.front(), exe));
  }
  return static_cast<int>(pid);
}

}  // namespace gpuwatch::sim_session
