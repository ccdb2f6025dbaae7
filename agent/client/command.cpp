// The agent's own subprocesses: command.h.
#include "argus/agent/command.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace argus::agent {

std::optional<std::vector<std::string>>
command_words(const std::string &tmpl, const std::map<std::string, std::string> &values) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    const char c = tmpl[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word)
        words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\\' && i + 1 < tmpl.size()) {
      word += tmpl[++i];
      in_word = true;
    } else if (c == '\'' || c == '"') {
      const size_t close = tmpl.find(c, i + 1);
      if (close == std::string::npos)
        return std::nullopt;
      word += tmpl.substr(i + 1, close - i - 1);
      i = close;
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word)
    words.push_back(std::move(word));
  for (std::string &w : words) {
    std::string filled;
    for (size_t at = 0; at < w.size();) {
      const size_t open = w.find('{', at);
      const size_t close = open == std::string::npos ? open : w.find('}', open);
      if (close == std::string::npos) {
        filled += w.substr(at);
        break;
      }
      const auto value = values.find(w.substr(open + 1, close - open - 1));
      if (value == values.end())
        return std::nullopt;
      filled += w.substr(at, open - at) + value->second;
      at = close + 1;
    }
    w = std::move(filled);
  }
  return words;
}

CommandResult run_command(const std::vector<std::string> &argv, std::chrono::milliseconds timeout) {
  CommandResult result;
  if (argv.empty()) {
    result.error = "an empty command";
    return result;
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP); // its own group: killed whole
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    result.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n <= 0)
      break; // end of output (or an error): wait for the exit
    result.out.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  // Its output closed; it may still run (a child kept it busy): the same deadline.
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (!result.timed_out && std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
    }
    usleep(10000);
  }
  if (!result.timed_out && WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  if (result.timed_out)
    result.error = argv[0] + " took longer than " + std::to_string(timeout.count()) + " ms";
  else if (result.exit_code < 0)
    result.error = argv[0] + " was killed by a signal";
  return result;
}

} // namespace argus::agent
