// Runs one transcript through the real `argus lsp` and checks its answers.
//
// Usage: argus_lsp_transcript ARGUS_BINARY TRANSCRIPT
//
// A transcript is a text file of lines:
//   # ...            a comment (blank lines are ignored too)
//   --> TEXT         a client message: TEXT (one line, sent as is, so it may be
//                    invalid JSON) framed with its Content-Length
//   ==> BYTES        raw bytes sent unframed; \r, \n and \\ are unescaped
//   <-- JSON         an expected server message (partial match, see below)
//   exit N           the expected exit status (default 0)
//   args A B ...     extra arguments for `argus lsp`
// All input is sent at once (from a file on the server's stdin). Expected
// messages must appear in this order among the server's messages; others may
// come in between. Partial match: every key of an expected object must be
// present and match recursively; arrays match element-wise and by length;
// scalars by equality.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

bool matches(const json &expected, const json &actual) {
  if (expected.is_object()) {
    if (!actual.is_object())
      return false;
    for (const auto &[key, value] : expected.items()) {
      if (!actual.contains(key) || !matches(value, actual[key]))
        return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size())
      return false;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!matches(expected[i], actual[i]))
        return false;
    }
    return true;
  }
  return expected == actual;
}

std::string unescape(const std::string &text) {
  std::string result;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char c = text[++i];
      result += c == 'r' ? '\r' : c == 'n' ? '\n' : c;
    } else {
      result += text[i];
    }
  }
  return result;
}

// Splits the server's stdout into messages; false if the framing is broken.
bool parse_frames(const std::string &out, std::vector<json> &messages) {
  size_t at = 0;
  while (at < out.size()) {
    const size_t header_end = out.find("\r\n\r\n", at);
    if (header_end == std::string::npos || out.compare(at, 16, "Content-Length: ") != 0)
      return false;
    const size_t length = std::stoul(out.substr(at + 16, header_end - at - 16));
    const size_t body = header_end + 4;
    if (body + length > out.size())
      return false;
    json message = json::parse(out.substr(body, length), nullptr, false);
    if (message.is_discarded())
      return false;
    messages.push_back(std::move(message));
    at = body + length;
  }
  return true;
}

struct Outcome {
  int exit_code = -1;
  bool timed_out = false;
  std::string out;
  std::string err;
};

Outcome run(const std::string &binary, const std::vector<std::string> &args,
            const std::string &input) {
  Outcome outcome;
  char input_path[] = "/tmp/argus_lsp_transcript_XXXXXX";
  const int input_fd = mkstemp(input_path);
  if (input_fd < 0)
    return outcome;
  if (write(input_fd, input.data(), input.size()) != static_cast<ssize_t>(input.size()))
    return outcome;
  lseek(input_fd, 0, SEEK_SET);
  unlink(input_path);
  int out_fds[2];
  int err_fds[2];
  if (pipe(out_fds) != 0 || pipe(err_fds) != 0)
    return outcome;
  std::vector<char *> argv = {const_cast<char *>(binary.c_str())};
  for (const std::string &arg : args)
    argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(input_fd, STDIN_FILENO);
    dup2(out_fds[1], STDOUT_FILENO);
    dup2(err_fds[1], STDERR_FILENO);
    close(out_fds[0]);
    close(err_fds[0]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(input_fd);
  close(out_fds[1]);
  close(err_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  pollfd fds[2] = {{out_fds[0], POLLIN, 0}, {err_fds[0], POLLIN, 0}};
  std::string *sinks[2] = {&outcome.out, &outcome.err};
  int open_streams = 2;
  while (open_streams > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      outcome.timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      char buffer[65536];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
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
    outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: argus_lsp_transcript ARGUS_BINARY TRANSCRIPT\n";
    return 2;
  }
  std::ifstream file(argv[2], std::ios::binary);
  if (!file) {
    std::cerr << "cannot read " << argv[2] << '\n';
    return 2;
  }
  std::string input;
  std::vector<std::pair<int, json>> expected; // line number, message
  std::vector<std::string> args = {"lsp"};
  int expected_exit = 0;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    const std::string rest = line.size() > 4 ? line.substr(4) : "";
    if (line.starts_with("--> ")) {
      input += "Content-Length: " + std::to_string(rest.size()) + "\r\n\r\n" + rest;
    } else if (line.starts_with("==> ")) {
      input += unescape(rest);
    } else if (line.starts_with("<-- ")) {
      json message = json::parse(rest, nullptr, false);
      if (message.is_discarded()) {
        std::cerr << argv[2] << ":" << number << ": expected message is not JSON\n";
        return 2;
      }
      expected.emplace_back(number, std::move(message));
    } else if (line.starts_with("exit ")) {
      expected_exit = std::atoi(line.c_str() + 5);
    } else if (line.starts_with("args ")) {
      std::istringstream words(line.substr(5));
      for (std::string word; words >> word;)
        args.push_back(word);
    } else {
      std::cerr << argv[2] << ":" << number << ": unknown line\n";
      return 2;
    }
  }

  const Outcome outcome = run(argv[1], args, input);
  bool ok = true;
  if (outcome.timed_out) {
    std::cerr << "FAIL: the server did not finish within 30 s\n";
    ok = false;
  }
  if (outcome.exit_code != expected_exit) {
    std::cerr << "FAIL: exit status " << outcome.exit_code << ", expected " << expected_exit
              << '\n';
    ok = false;
  }
  std::vector<json> messages;
  if (!parse_frames(outcome.out, messages)) {
    std::cerr << "FAIL: stdout is not a sequence of framed JSON messages\n";
    ok = false;
  }
  size_t next = 0;
  for (const auto &[number, message] : expected) {
    size_t at = next;
    while (at < messages.size() && !matches(message, messages[at]))
      ++at;
    if (at == messages.size()) {
      std::cerr << "FAIL: line " << number << ": no later message matches " << message.dump()
                << '\n';
      ok = false;
      break;
    }
    next = at + 1;
  }
  if (!ok) {
    std::cerr << "--- server messages:\n";
    for (const json &message : messages)
      std::cerr << message.dump() << '\n';
    std::cerr << "--- server stderr:\n" << outcome.err;
    return 1;
  }
  std::cout << "ok: " << expected.size() << " expected messages matched\n";
  return 0;
}
