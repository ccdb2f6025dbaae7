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
//   env NAME=VALUE   an environment variable for the server
// @DIR@ in client messages, args and env values is the transcript's folder
// (to reach test scripts).
// The server runs as a subprocess with a pipe as stdin. Client lines are sent
// in batches: everything up to an expected message is sent, then the runner
// waits (up to 30 s) until a server message matches it, then goes on. So a
// transcript states causality: input after a `<--` line is sent only once
// that message arrived (a didChange after the diagnostics of the version
// before, say), while lines with no `<--` between them arrive together (a
// request and its $/cancelRequest). The server answers on worker threads, so
// each expectation may match any message not matched yet, in arrival order.
// After the last line stdin is closed. Partial match: every key of an
// expected object must be present and match recursively; arrays match
// element-wise and by length; scalars by equality. An expected object
// {"$contains": [E1, E2, ...]} matches an array in which each Ei matches some
// element (long lists such as completions, where order and length are not the point).

#include "process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

bool matches(const json &expected, const json &actual) {
  if (expected.is_object() && expected.size() == 1 && expected.contains("$contains")) {
    if (!actual.is_array())
      return false;
    for (const json &wanted : expected["$contains"]) {
      bool found = false;
      for (const json &element : actual)
        found = found || matches(wanted, element);
      if (!found)
        return false;
    }
    return true;
  }
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

// Splits complete frames of the server's stdout from `at` on into messages
// and moves `at` past them; false if the framing is broken.
bool parse_frames(const std::string &out, size_t &at, std::vector<json> &messages) {
  while (at < out.size()) {
    const size_t header_end = out.find("\r\n\r\n", at);
    if (header_end == std::string::npos)
      return true; // not complete yet (left over at the end: broken)
    if (out.compare(at, 16, "Content-Length: ") != 0)
      return false;
    const size_t length = std::stoul(out.substr(at + 16, header_end - at - 16));
    const size_t body = header_end + 4;
    if (body + length > out.size())
      return true; // not complete yet
    json message = json::parse(out.substr(body, length), nullptr, false);
    if (message.is_discarded())
      return false;
    messages.push_back(std::move(message));
    at = body + length;
  }
  return true;
}

struct Step {
  int line = 0;
  bool expect = false;
  std::string bytes; // to send
  json message;      // expected
};

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
  std::vector<Step> steps;
  std::vector<std::string> args = {"lsp"};
  int expected_exit = 0;
  size_t expectations = 0;
  std::vector<std::pair<std::string, std::string>> env;
  const std::string folder = std::filesystem::absolute(argv[2]).parent_path().string();
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    std::string rest = line.size() > 4 ? line.substr(4) : "";
    for (size_t at; (at = rest.find("@DIR@")) != std::string::npos;)
      rest.replace(at, 5, folder);
    if (line.starts_with("--> ")) {
      steps.push_back({number,
                       false,
                       "Content-Length: " + std::to_string(rest.size()) + "\r\n\r\n" + rest,
                       {}});
    } else if (line.starts_with("==> ")) {
      steps.push_back({number, false, unescape(rest), {}});
    } else if (line.starts_with("<-- ")) {
      json message = json::parse(rest, nullptr, false);
      if (message.is_discarded()) {
        std::cerr << argv[2] << ":" << number << ": expected message is not JSON\n";
        return 2;
      }
      steps.push_back({number, true, {}, std::move(message)});
      ++expectations;
    } else if (line.starts_with("exit ")) {
      expected_exit = std::atoi(line.c_str() + 5);
    } else if (line.starts_with("args ")) {
      std::istringstream words(rest);
      for (std::string word; words >> word;)
        args.push_back(word);
    } else if (line.starts_with("env ") && line.find('=') != std::string::npos) {
      const size_t at = rest.find('=');
      env.emplace_back(rest.substr(0, at), rest.substr(at + 1));
    } else {
      std::cerr << argv[2] << ":" << number << ": unknown line\n";
      return 2;
    }
  }

  argus::testing::ProcessOptions options;
  for (const auto &[name, value] : env)
    options.env.emplace_back(name, value);
  argus::testing::InteractiveProcess server(argv[1], args, options);
  if (!server.started()) {
    std::cerr << "FAIL: cannot start " << argv[1] << '\n';
    return 1;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<json> messages;
  std::vector<bool> matched;
  size_t parsed = 0;
  bool framing_ok = true;
  bool ok = true;
  std::string batch;
  for (const Step &step : steps) {
    if (!step.expect) {
      batch += step.bytes;
      continue;
    }
    server.write(batch, deadline); // a server that stopped reading fails the expectation below
    batch.clear();
    bool found = false;
    server.read_until(
        [&] {
          framing_ok = framing_ok && parse_frames(server.out(), parsed, messages);
          matched.resize(messages.size(), false);
          for (size_t i = 0; i < messages.size() && !found; ++i)
            if (!matched[i] && matches(step.message, messages[i])) {
              matched[i] = true;
              found = true;
            }
          return found || !framing_ok;
        },
        std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(30)));
    if (!found) {
      std::cerr << "FAIL: line " << step.line << ": no message matches " << step.message.dump()
                << '\n';
      ok = false;
      break;
    }
  }
  if (ok)
    server.write(batch, deadline);
  const argus::testing::ProcessResult outcome =
      server.finish(ok ? deadline : std::chrono::steady_clock::now() + std::chrono::seconds(5));
  framing_ok = framing_ok && parse_frames(outcome.out, parsed, messages);
  if (!framing_ok || parsed != outcome.out.size()) {
    std::cerr
        << "FAIL: stdout is not a sequence of framed JSON messages (exit status "
        << outcome.exit_code << ", signal " << outcome.signal << "); from byte " << parsed << " of "
        << outcome.out.size() << ": "
        << json(outcome.out.substr(parsed, 400)).dump(-1, ' ', true, json::error_handler_t::replace)
        << '\n';
    ok = false;
  }
  if (ok && outcome.timed_out) {
    std::cerr << "FAIL: the server did not exit within 60 s\n";
    ok = false;
  }
  if (ok && outcome.exit_code != expected_exit) {
    std::cerr << "FAIL: exit status " << outcome.exit_code << ", expected " << expected_exit
              << '\n';
    ok = false;
  }
  if (!ok) {
    std::cerr << "--- server messages:\n";
    for (const json &message : messages)
      std::cerr << message.dump() << '\n';
    std::cerr << "--- server stderr:\n" << outcome.err;
    return 1;
  }
  std::cout << "ok: " << expectations << " expected messages matched\n";
  return 0;
}
