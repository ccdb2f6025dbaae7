// Running an artifact through a runner command template (`argus bench`, the
// language server's `argus.benchmark`): the template, the shell with a time
// limit and cancellation, and the runner's JSON output (docs/artifacts.md).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace argus::codegen {

// Quotes a word for /bin/sh: 'it'\''s'.
std::string shell_quote(std::string_view word);

// Replaces {runner}, {artifact} and {target} in `tmpl` with the shell-quoted
// values; `extra` (already quoted words) is appended. A template without
// {artifact} gets the artifact appended as its last word.
std::string expand_template(std::string_view tmpl, std::string_view runner,
                            std::string_view artifact, std::string_view target,
                            std::string_view extra = {});

struct ShellResult {
  int exit_code = -1; // -1 when killed by a signal or not started
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::string out, err;
};

// Runs `command` with /bin/sh -c in its own process group (stdin /dev/null),
// capturing stdout and stderr; after `timeout`, or soon after `*cancelled`
// becomes true, the whole group is killed.
ShellResult run_shell(const std::string &command, std::chrono::milliseconds timeout,
                      const std::atomic<bool> *cancelled = nullptr);

// argus-runner next to the running binary, else the first on PATH, else the bare name.
std::string find_runner();

// The runner's stdout as JSON: the whole text, else from the first line that
// starts a JSON object or array (a login banner may come first).
std::optional<nlohmann::ordered_json> parse_runner_output(const std::string &out);

// The last `max_chars` of a text without trailing blanks ("..." in front when cut).
std::string text_tail(const std::string &text, size_t max_chars);

} // namespace argus::codegen
