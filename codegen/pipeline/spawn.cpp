// fork + execvp with pipes: see spawn.h for why there is no shell.
#include "argus/codegen/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace argus::codegen {

namespace {

void close_all(std::initializer_list<int> fds) {
  for (int fd : fds)
    if (fd >= 0)
      close(fd);
}

} // namespace

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string command_line(const std::vector<std::string> &argv) {
  std::string out;
  for (const std::string &word : argv) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./=:,+%@", c);
    });
    out += (out.empty() ? "" : " ") + (plain ? word : shell_quote(word));
  }
  return out;
}

SpawnResult spawn(const std::vector<std::string> &argv, const SpawnOptions &options) {
  SpawnResult result;
  if (argv.empty() || argv[0].empty()) {
    result.error = "no program to run";
    return result;
  }
  // out, err, and a close-on-exec pipe on which the child reports a failed exec.
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    close_all({out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1]});
    return result;
  }
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(errno);
    close_all({out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0], exec_pipe[1]});
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0)
      dup2(null_fd, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(options.merge_stderr ? out_pipe[1] : err_pipe[1], STDERR_FILENO);
    close_all({out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], exec_pipe[0]});
    int failure = 0;
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0)
      failure = errno;
    else {
      execvp(args[0], args.data());
      failure = errno;
    }
    const ssize_t ignored = write(exec_pipe[1], &failure, sizeof failure);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid); // also in the parent, so the group exists before a kill
  close_all({out_pipe[1], err_pipe[1], exec_pipe[1]});
  int failure = 0;
  ssize_t got;
  while ((got = read(exec_pipe[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    close_all({out_pipe[0], err_pipe[0]});
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.error = "cannot run " + argv[0] + (options.cwd.empty() ? "" : " in " + options.cwd) +
                   ": " + std::strerror(failure);
    return result;
  }
  result.started = true;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    long long wait_ms = 1000;
    if (options.timeout.count() > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = std::min<long long>(wait_ms, left.count());
    }
    if (options.cancelled && options.cancelled->load()) {
      result.cancelled = true;
      break;
    }
    if (options.cancelled) // wake up often enough to notice a cancellation
      wait_ms = std::min<long long>(wait_ms, 50);
    const int ready = poll(fds, 2, static_cast<int>(wait_ms));
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        if (sinks[i]->size() < options.max_output) // a runaway program cannot make us hold more
          sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  const bool killed = result.timed_out || result.cancelled;
  if (killed)
    kill(-pid, SIGKILL);
  for (const pollfd &p : fds)
    if (p.fd >= 0)
      close(p.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed)
    kill(-pid, SIGKILL); // anything of the group left behind
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

} // namespace argus::codegen
