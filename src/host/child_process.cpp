#include "host/child_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>

extern char** environ;

namespace gpuwatch::host {
namespace {

constexpr std::array<int, 4> kForwardedToChild = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
volatile sig_atomic_t g_forward_to_pid = 0;

extern "C" void forward_to_child(int signal, siginfo_t* info, void*) {
  const pid_t child = g_forward_to_pid;
  if (child <= 0) return;
  if (info != nullptr && info->si_code > 0) return;  // from the kernel (the terminal): the child got it too
  ::kill(child, signal);
}

std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& added) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : added) replaced = replaced || key == name;
    if (!replaced) out.push_back(std::move(entry));
  }
  for (const auto& [key, value] : added) out.push_back(key + "=" + value);
  return out;
}

core::Error cannot_run(const std::string& command, const std::string& why, int code) {
  return core::make_error(fmt::format("cannot run '{}': {}", command, why), code);
}

}  // namespace

core::Result<std::unique_ptr<ChildProcess>> ChildProcess::start(
    const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return cannot_run("", "no command", 127);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment = environment_with(env);
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0) return cannot_run(argv[0], std::strerror(errno), 126);
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  for (int s : kForwardedToChild) sigaddset(&forwarded, s);
  ::sigprocmask(SIG_BLOCK, &forwarded, &old_mask);  // no forwarding before the PID is known
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {  // our dispositions are untouched so far: the child gets them, and our mask
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execvpe(args[0], args.data(), envp.data());
    const int error = errno;
    [[maybe_unused]] auto n = ::write(exec_error[1], &error, sizeof error);
    ::_exit(error == ENOENT ? 127 : 126);
  }
  const int fork_errno = errno;
  ::close(exec_error[1]);
  if (pid < 0) {
    ::close(exec_error[0]);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return cannot_run(argv[0], fmt::format("fork: {}", std::strerror(fork_errno)), 126);
  }
  g_forward_to_pid = pid;
  std::unique_ptr<ChildProcess> child(new ChildProcess(pid));
  struct sigaction action {};
  action.sa_sigaction = forward_to_child;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int s : kForwardedToChild) {
    struct sigaction old {};
    ::sigaction(s, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // ignored (nohup): stays ignored
    child->old_actions_.emplace_back(s, old);
    ::sigaction(s, &action, nullptr);
  }
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);

  int error = 0;
  ssize_t got = 0;
  do got = ::read(exec_error[0], &error, sizeof error);
  while (got < 0 && errno == EINTR);
  ::close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {  // exec failed: the child exits 127 or 126
    child->wait();
    return cannot_run(argv[0], std::strerror(error), error == ENOENT ? 127 : 126);
  }
  return child;
}

ChildProcess::~ChildProcess() {
  g_forward_to_pid = 0;
  for (const auto& [signal, old] : old_actions_) ::sigaction(signal, &old, nullptr);
}

ChildExit ChildProcess::wait() { return wait_for(pid_); }

ChildExit ChildProcess::wait_reaping_others() { return wait_for(-1); }

ChildExit ChildProcess::wait_for(pid_t which) {
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(which, &status, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return ChildExit{1, std::nullopt};  // ECHILD: it was reaped elsewhere
    }
    if (done != pid_) continue;  // another child, re-parented to us: reaped
    g_forward_to_pid = 0;
    if (WIFEXITED(status)) return ChildExit{WEXITSTATUS(status), std::nullopt};
    if (WIFSIGNALED(status)) return ChildExit{128 + WTERMSIG(status), WTERMSIG(status)};
    return ChildExit{1, std::nullopt};
  }
}

}  // namespace gpuwatch::host
