#include "jobs/job_child.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fmt/core.h>

extern char** environ;

namespace gpuwatch::jobs {
namespace {

constexpr std::array<int, 4> kForwarded = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
volatile sig_atomic_t g_child_pid = 0;

extern "C" void forward_to_job(int signal, siginfo_t* info, void*) {
  const pid_t child = g_child_pid;
  if (child <= 0) return;
  if (info != nullptr && info->si_code > 0) return;  // from the kernel (the terminal): the child got it too
  ::kill(child, signal);
}

std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : extra) replaced = replaced || key == name;
    if (!replaced) out.push_back(std::move(entry));
  }
  for (const auto& [key, value] : extra) out.push_back(key + "=" + value);
  return out;
}

}  // namespace

core::Result<std::unique_ptr<JobChild>> JobChild::start(const std::vector<std::string>& argv,
                                                        const std::vector<std::pair<std::string, std::string>>& env) {
  if (argv.empty()) return core::make_error("no command to run: give it after --", 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment = merged_environment(env);
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);

  ::prctl(PR_SET_CHILD_SUBREAPER, 1);  // orphaned workers stay ours (and in the job's tree)
  int exec_error[2];
  if (::pipe2(exec_error, O_CLOEXEC) != 0)
    return core::make_error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(errno)), 126);
  sigset_t forwarded, old_mask;
  sigemptyset(&forwarded);
  for (int s : kForwarded) sigaddset(&forwarded, s);
  ::sigprocmask(SIG_BLOCK, &forwarded, &old_mask);  // no forwarding before the PID is known
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
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
    return core::make_error(fmt::format("cannot run '{}': fork: {}", argv[0], std::strerror(fork_errno)), 126);
  }
  g_child_pid = pid;
  std::unique_ptr<JobChild> child(new JobChild(pid));
  struct sigaction action {};
  action.sa_sigaction = forward_to_job;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int s : kForwarded) {
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
  if (got == static_cast<ssize_t>(sizeof error)) {
    child->wait();
    return core::make_error(fmt::format("cannot run '{}': {}", argv[0], std::strerror(error)), error == ENOENT ? 127 : 126);
  }
  return child;
}

JobChild::~JobChild() {
  g_child_pid = 0;
  for (const auto& [signal, old] : old_actions_) ::sigaction(signal, &old, nullptr);
}

ChildExit JobChild::wait() {
  for (;;) {
    int status = 0;
    pid_t done = ::waitpid(-1, &status, 0);  // any: orphaned workers re-parented to us are reaped too
    if (done < 0) {
      if (errno == EINTR) continue;
      return ChildExit{1, std::nullopt};  // ECHILD: it was reaped elsewhere
    }
    if (done != pid_) continue;
    g_child_pid = 0;
    if (WIFEXITED(status)) return ChildExit{WEXITSTATUS(status), std::nullopt};
    if (WIFSIGNALED(status)) return ChildExit{128 + WTERMSIG(status), WTERMSIG(status)};
    return ChildExit{1, std::nullopt};
  }
}

}  // namespace gpuwatch::jobs
