#include "notify/process_runner.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuwatch::notify {
namespace {

constexpr std::size_t kAnswerBytes = 512;

struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// write() to a pipe whose reader is gone raises SIGPIPE: block it on this thread around the
// write and take the pending signal back, so gpuwatch is not killed by a command that exits early.
ssize_t write_no_sigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  const ssize_t n = ::write(fd, data, size);
  if (n < 0 && errno == EPIPE) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  const int saved = errno;
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = saved;
  return n;
}

}  // namespace

SendResult run_process(const std::vector<std::string>& argv, const std::string& input, std::chrono::milliseconds timeout,
                       const std::atomic<bool>* cancel, const std::vector<std::string>* environment) {
  SendResult result;
  if (argv.empty()) {
    result.error = "no command";
    result.permanent = true;
    return result;
  }
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd in_read{in_pipe[0]}, in_write{in_pipe[1]};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  std::vector<char*> env;
  if (environment != nullptr) {
    for (const auto& entry : *environment) env.push_back(const_cast<char*>(entry.c_str()));
    env.push_back(nullptr);
  }
  const int spawned = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environment ? env.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    result.error = "cannot run " + argv[0] + ": " + std::strerror(spawned);
    result.permanent = spawned == ENOENT || spawned == EACCES;
    return result;
  }
  in_read.reset();
  out_write.reset();
  ::fcntl(in_write.fd, F_SETFL, O_NONBLOCK);
  ::fcntl(out_read.fd, F_SETFL, O_NONBLOCK);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t written = 0;
  if (input.empty()) in_write.reset();
  bool timed_out = false, stopped = false;
  while (out_read.fd >= 0) {
    if (cancel != nullptr && cancel->load()) {
      stopped = true;
      break;
    }
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::milliseconds(0)) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_read.fd, POLLIN, 0}, {in_write.fd, POLLOUT, 0}};
    const int count = in_write.fd >= 0 ? 2 : 1;
    const int wait_ms = static_cast<int>(
        std::min<long long>(100, std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1));
    if (::poll(fds, count, wait_ms) < 0 && errno != EINTR) break;
    if (count == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write_no_sigpipe(in_write.fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN) || written == input.size()) in_write.reset();  // done, or the reader left
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char buffer[4096];
      const ssize_t n = ::read(out_read.fd, buffer, sizeof buffer);
      if (n > 0 && result.answer.size() < kAnswerBytes) {
        result.answer.append(buffer, std::min(static_cast<std::size_t>(n), kAnswerBytes - result.answer.size()));
      }
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) out_read.reset();  // every writer closed it
    }
  }
  if (timed_out || stopped) ::kill(-pid, SIGKILL);  // the whole group: a shell and what it started
  int status = 0;
  // The output closed but the program may still run (it closed its stdout): wait within the deadline.
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    const bool cancelled = cancel != nullptr && cancel->load();
    if (!timed_out && !stopped && (std::chrono::steady_clock::now() >= deadline || cancelled)) {
      (cancelled ? stopped : timed_out) = true;
      ::kill(-pid, SIGKILL);
    }
    ::usleep(10000);
  }
  const bool got_input = written == input.size();
  if (stopped || timed_out) {
    result.error = stopped ? "stopped (gpuwatch is shutting down)"
                           : "no exit within " + std::to_string(timeout.count()) + " ms (killed)";
    result.maybe_delivered = got_input;
    return result;
  }
  if (WIFEXITED(status)) {
    result.status = WEXITSTATUS(status);
    result.accepted = WEXITSTATUS(status) == 0;
    if (!result.accepted) {
      result.error = "exit status " + std::to_string(WEXITSTATUS(status));
      result.permanent = WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127;  // not runnable, not found
    }
  } else if (WIFSIGNALED(status)) {
    result.error = std::string("killed by signal ") + std::to_string(WTERMSIG(status));
    result.maybe_delivered = got_input;
  }
  return result;
}

}  // namespace gpuwatch::notify
