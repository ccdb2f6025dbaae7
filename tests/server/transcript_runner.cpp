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
//   env NAME=VALUE   an environment variable for the server; @DIR@ in VALUE
//                    is the transcript's folder (to reach test scripts)
// All input is sent at once (from a file on the server's stdin). Expected
// messages must appear in this order among the server's messages; others may
// come in between. Partial match: every key of an expected object must be
// present and match recursively; arrays match element-wise and by length;
// scalars by equality.

#include "process.h"

#include <nlohmann/json.hpp>

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

// The server runs as a real subprocess: the transcript is its stdin.
argus::testing::ProcessResult run(const std::string &binary, const std::vector<std::string> &args,
                                  const std::string &input,
                                  const std::vector<std::pair<std::string, std::string>> &env) {
  argus::testing::ProcessOptions options;
  for (const auto &[name, value] : env)
    options.env.emplace_back(name, value);
  options.stdin_text = input;
  options.timeout = std::chrono::seconds(30);
  return argus::testing::run_process(binary, args, options);
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
  std::vector<std::pair<std::string, std::string>> env;
  const std::string folder = std::filesystem::absolute(argv[2]).parent_path().string();
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
    } else if (line.starts_with("env ") && line.find('=') != std::string::npos) {
      const size_t equals = line.find('=');
      std::string value = line.substr(equals + 1);
      for (size_t at; (at = value.find("@DIR@")) != std::string::npos;)
        value.replace(at, 5, folder);
      env.emplace_back(line.substr(4, equals - 4), value);
    } else {
      std::cerr << argv[2] << ":" << number << ": unknown line\n";
      return 2;
    }
  }

  const argus::testing::ProcessResult outcome = run(argv[1], args, input, env);
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
