#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
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

// execve's argv and envp (pointers into strings this object owns).
struct ExecArguments {
  ExecArguments(const std::string &program, const std::vector<std::string> &args,
                const ProcessOptions &options)
      : env(child_environment(options)) {
    argv.push_back(const_cast<char *>(program.c_str()));
    for (const std::string &arg : args)
      argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    for (const std::string &entry : env)
      envp.push_back(const_cast<char *>(entry.c_str()));
    envp.push_back(nullptr);
  }
  std::vector<std::string> env;
  std::vector<char *> argv, envp;
};

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
  const ExecArguments exec(program, args, options);

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
    execve(program.c_str(), exec.argv.data(), exec.envp.data());
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

InteractiveProcess::InteractiveProcess(const std::string &program,
                                       const std::vector<std::string> &args,
                                       const ProcessOptions &options) {
  const ExecArguments exec(program, args, options);
  int in_fds[2], out_fds[2], err_fds[2];
  if (pipe(in_fds) != 0 || pipe(out_fds) != 0 || pipe(err_fds) != 0)
    return;
  signal(SIGPIPE, SIG_IGN); // a child that exits early must not kill the test
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in_fds[0], STDIN_FILENO);
    dup2(out_fds[1], STDOUT_FILENO);
    dup2(err_fds[1], STDERR_FILENO);
    for (int fd : {in_fds[0], in_fds[1], out_fds[0], out_fds[1], err_fds[0], err_fds[1]})
      close(fd);
    if (!options.working_directory.empty() && chdir(options.working_directory.c_str()) != 0)
      _exit(127);
    execve(program.c_str(), exec.argv.data(), exec.envp.data());
    _exit(127);
  }
  close(in_fds[0]);
  close(out_fds[1]);
  close(err_fds[1]);
  in_ = in_fds[1];
  out_ = out_fds[0];
  err_ = err_fds[0];
  fcntl(in_, F_SETFL, fcntl(in_, F_GETFL) | O_NONBLOCK);
}

InteractiveProcess::~InteractiveProcess() {
  for (int fd : {in_, out_, err_})
    if (fd >= 0)
      close(fd);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void InteractiveProcess::pump(bool want_write, int timeout_ms, bool &writable) {
  pollfd fds[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {want_write ? in_ : -1, POLLOUT, 0}};
  writable = false;
  if (poll(fds, 3, timeout_ms) < 0)
    return;
  std::string *sinks[2] = {&result_.out, &result_.err};
  int *owners[2] = {&out_, &err_};
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
      continue;
    if (!drain(fds[i].fd, *sinks[i])) {
      close(*owners[i]);
      *owners[i] = -1;
    }
  }
  writable = want_write && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0;
}

namespace {

int millis_until(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<long long>(left.count(), 0, 100));
}

} // namespace

bool InteractiveProcess::write(std::string_view bytes,
                               std::chrono::steady_clock::time_point deadline) {
  while (!bytes.empty()) {
    if (in_ < 0 || std::chrono::steady_clock::now() >= deadline)
      return false;
    bool writable = false;
    pump(true, millis_until(deadline), writable);
    if (!writable)
      continue;
    const ssize_t n = ::write(in_, bytes.data(), bytes.size());
    if (n > 0)
      bytes.remove_prefix(static_cast<size_t>(n));
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
      return false;
  }
  return true;
}

bool InteractiveProcess::read_until(const std::function<bool()> &done,
                                    std::chrono::steady_clock::time_point deadline) {
  while (!done()) {
    if ((out_ < 0 && err_ < 0) || std::chrono::steady_clock::now() >= deadline)
      return done();
    bool writable = false;
    pump(false, millis_until(deadline), writable);
  }
  return true;
}

ProcessResult InteractiveProcess::finish(std::chrono::steady_clock::time_point deadline) {
  if (in_ >= 0) {
    close(in_);
    in_ = -1;
  }
  while ((out_ >= 0 || err_ >= 0) && std::chrono::steady_clock::now() < deadline) {
    bool writable = false;
    pump(false, millis_until(deadline), writable);
  }
  if (out_ >= 0 || err_ >= 0) {
    kill(pid_, SIGKILL);
    result_.timed_out = true;
  }
  int status = 0;
  while (pid_ > 0 && waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status))
    result_.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result_.signal = WTERMSIG(status);
  return result_;
}

} // namespace argus::testing
