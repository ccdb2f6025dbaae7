// A program run by the agent itself (the reference library's timer for
// `argus agent eval`): argv words from a template the user gave on the
// command line, placeholders filled inside words (a value never becomes a
// word of its own or reaches a shell), stdout captured, a time limit.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::agent {

// `tmpl` split into words as a shell would without expanding anything
// (quotes and backslashes group), then each `{name}` replaced by
// values[name]; nullopt for an open quote or a placeholder with no value.
std::optional<std::vector<std::string>>
command_words(const std::string &tmpl, const std::map<std::string, std::string> &values);

struct CommandResult {
  int exit_code = -1; // -1: did not start, killed or timed out
  bool timed_out = false;
  std::string out;   // stdout (stderr is the agent's)
  std::string error; // why it did not run
};

CommandResult run_command(const std::vector<std::string> &argv, std::chrono::milliseconds timeout);

} // namespace argus::agent
