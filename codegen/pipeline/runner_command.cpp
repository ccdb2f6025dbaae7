#include "argus/codegen/runner_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace argus::codegen {

namespace {

std::string self_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

bool is_executable(const std::filesystem::path &p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
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

std::string expand_template(std::string_view tmpl, std::string_view runner,
                            std::string_view artifact, std::string_view target,
                            std::string_view extra) {
  std::string out;
  bool saw_artifact = false;
  for (size_t i = 0; i < tmpl.size();) {
    auto starts = [&](std::string_view key) { return tmpl.substr(i, key.size()) == key; };
    if (starts("{runner}")) {
      out += shell_quote(runner);
      i += 8;
    } else if (starts("{artifact}")) {
      out += shell_quote(artifact);
      saw_artifact = true;
      i += 10;
    } else if (starts("{target}")) {
      out += shell_quote(target);
      i += 8;
    } else {
      out += tmpl[i++];
    }
  }
  if (!saw_artifact)
    out += " " + shell_quote(artifact);
  if (!extra.empty())
    out += " " + std::string(extra);
  return out;
}

ShellResult run_shell(const std::string &command, std::chrono::milliseconds timeout,
                      const std::atomic<bool> *cancelled) {
  ShellResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0)
    return result;
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      close(fd);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0)
      dup2(null_fd, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
      close(fd);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid); // also in the parent, so the group exists before a kill
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    if (cancelled && cancelled->load()) {
      result.cancelled = true;
      break;
    }
    // With a cancellation flag, wake up often enough to notice it.
    const long long slice = cancelled ? 50 : 1000;
    const int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), slice)));
    if (ready < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        if (sinks[i]->size() < (64u << 20)) // cap what a runaway runner can make us hold
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

std::string find_runner() {
  const std::string self = self_path();
  if (!self.empty()) {
    const auto candidate = std::filesystem::path(self).parent_path() / "argus-runner";
    if (is_executable(candidate))
      return candidate.string();
  }
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / "argus-runner";
      if (is_executable(candidate))
        return candidate.string();
    }
  }
  return "argus-runner";
}

std::string text_tail(const std::string &text, size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  return t.size() > max_chars ? "..." + t.substr(t.size() - max_chars) : t;
}

std::optional<nlohmann::ordered_json> parse_runner_output(const std::string &out) {
  auto attempt = [](std::string_view text) -> std::optional<nlohmann::ordered_json> {
    auto j = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded() || !(j.is_object() || j.is_array()))
      return std::nullopt;
    return j;
  };
  if (auto j = attempt(out))
    return j;
  for (size_t pos = 0; pos < out.size();) {
    const size_t nl = out.find('\n', pos);
    const size_t next = nl == std::string::npos ? out.size() : nl + 1;
    if (nl != std::string::npos && next < out.size() && (out[next] == '{' || out[next] == '['))
      if (auto j = attempt(std::string_view(out).substr(next)))
        return j;
    pos = next;
  }
  return std::nullopt;
}

} // namespace argus::codegen
