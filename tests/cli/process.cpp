#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char **environ;

namespace argus::testing {
namespace {

// The child's environment: ours, the sanitizer settings, then the test's changes.
std::vector<std::string> child_environment(const ProcessOptions &options) {
  std::map<std::string, std::string> env;
  for (char **entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos)
      env[text.substr(0, equals)] = text.substr(equals + 1);
  }
  const auto append = [&](const std::string &name, const std::string &value) {
    std::string &current = env[name];
    current += (current.empty() ? "" : ":") + value;
  };
  append("ASAN_OPTIONS", "exitcode=86");
  append("UBSAN_OPTIONS", "exitcode=87:halt_on_error=1:print_stacktrace=1");
  for (const auto &[name, value] : options.env) {
    if (value)
      env[name] = *value;
    else
      env.erase(name);
  }
  std::vector<std::string> result;
  for (const auto &[name, value] : env)
    result.push_back(name + "=" + value);
  return result;
}

// Reads what is available; false at end of stream (EIO is how a pty ends).
bool drain(int fd, std::string &into) {
  char buffer[65536];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n > 0) {
    into.append(buffer, static_cast<size_t>(n));
    return true;
  }
  return n < 0 && (errno == EINTR || errno == EAGAIN);
}

} // namespace

bool pseudo_terminals_available() {
  int master = -1;
  int slave = -1;
  if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
    return false;
  close(master);
  close(slave);
  return true;
}

ProcessResult run_process(const std::string &program, const std::vector<std::string> &args,
                          const ProcessOptions &options) {
  ProcessResult result;
  const std::vector<std::string> env_strings = child_environment(options);
  std::vector<char *> envp;
  for (const std::string &entry : env_strings)
    envp.push_back(const_cast<char *>(entry.c_str()));
  envp.push_back(nullptr);
  std::vector<char *> argv = {const_cast<char *>(program.c_str())};
  for (const std::string &arg : args)
    argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);

  int out_read = -1;
  int out_write = -1;
  if (options.stdout_is_terminal) {
    termios raw{};
    cfmakeraw(&raw);
    if (openpty(&out_read, &out_write, nullptr, &raw, nullptr) != 0)
      return result;
  } else {
    int fds[2];
    if (pipe(fds) != 0)
      return result;
    out_read = fds[0];
    out_write = fds[1];
  }
  int err_fds[2];
  if (pipe(err_fds) != 0)
    return result;

  // Standard input comes from an unlinked temporary file, so writing it can never
  // block on a child that is busy writing its own output.
  int stdin_fd = -1;
  if (options.stdin_text) {
    char path[] = "/tmp/argus_test_stdin_XXXXXX";
    stdin_fd = mkstemp(path);
    if (stdin_fd < 0)
      return result;
    unlink(path);
    const std::string &text = *options.stdin_text;
    if (write(stdin_fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
        lseek(stdin_fd, 0, SEEK_SET) != 0) {
      close(stdin_fd);
      return result;
    }
  }

  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY);
    dup2(null_fd, STDIN_FILENO);
    dup2(out_write, STDOUT_FILENO);
    dup2(err_fds[1], STDERR_FILENO);
    close(null_fd);
    close(out_read);
    close(out_write);
    close(err_fds[0]);
    close(err_fds[1]);
    if (!options.working_directory.empty() && chdir(options.working_directory.c_str()) != 0)
      _exit(127);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  if (stdin_fd >= 0)
    close(stdin_fd);
  close(out_write);
  close(err_fds[1]);

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out_read, POLLIN, 0}, {err_fds[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int open_streams = 2;
  while (open_streams > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      if (!drain(fds[i].fd, *sinks[i])) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  for (const pollfd &fd : fds) {
    if (fd.fd >= 0)
      close(fd.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

} // namespace argus::testing
