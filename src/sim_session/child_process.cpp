#include "sim_session/child_process.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuwatch::sim_session {

namespace {

constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
volatile sig_atomic_t g_child_pid = 0;

void forward_signal(int signal, siginfo_t* info, void*) {
  const pid_t child = g_child_pid;
  if (child <= 0) return;
  if (info != nullptr && info->si_code > 0) return;  // from the kernel (terminal): the child got it too
  ::kill(child, signal);
}

class SignalForwarding {
 public:
  SignalForwarding() {
    sigemptyset(&blocked_);
    for (int s : kForwarded) sigaddset(&blocked_, s);
    ::sigprocmask(SIG_BLOCK, &blocked_, &old_mask_);
    struct sigaction action {};
    action.sa_sigaction = forward_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kForwarded.size(); ++i) {
      ::sigaction(kForwarded[i], nullptr, &old_actions_[i]);
      if (old_actions_[i].sa_handler != SIG_IGN) ::sigaction(kForwarded[i], &action, nullptr);
    }
  }
  ~SignalForwarding() {
    g_child_pid = 0;
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_actions_[i], nullptr);
    unblock();
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  // In the child before exec: the dispositions and mask we found.
  void restore_in_child() const {
    for (size_t i = 0; i < kForwarded.size(); ++i) ::sigaction(kForwarded[i], &old_actions_[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  void unblock() const { ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr); }

 private:
  sigset_t blocked_{};
  sigset_t old_mask_{};
  std::array<struct sigaction, kForwarded.size()> old_actions_{};
};

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int run_child_process(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    fmt::print(stderr, "gpuwatch: no command to run\n");
    return 127;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) {
    fmt::print(stderr, "gpuwatch: cannot run '{}': {}\n", argv[0], std::strerror(errno));
    return 126;
  }
  std::fflush(nullptr);
  SignalForwarding forwarding;
  const pid_t pid = ::fork();
  if (pid == 0) {
    forwarding.restore_in_child();
    ::execvp(args[0], args.data());
    const int error = errno;
    [[maybe_unused]] auto n = ::write(exec_error[1], &error, sizeof error);
    ::_exit(error == ENOENT ? 127 : 126);
  }
  const int fork_errno = errno;
  ::close(exec_error[1]);
  if (pid < 0) {
    ::close(exec_error[0]);
    fmt::print(stderr, "gpuwatch: cannot run '{}': fork: {}\n", argv[0], std::strerror(fork_errno));
    return 126;
  }
  g_child_pid = pid;
  forwarding.unblock();

  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_error[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  ::close(exec_error[0]);
  const int status = wait_for(pid);
  if (got == static_cast<ssize_t>(sizeof error)) {
    fmt::print(stderr, "gpuwatch: cannot run '{}': {}\n", argv[0], std::strerror(error));
  }
  return status;
}

}  // namespace gpuwatch::sim_session
