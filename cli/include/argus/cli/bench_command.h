// `argus bench`: compiles a file into an artifact and runs it through a runner
// command template (argus-runner locally, or over ssh/srun), then prints the
// runner's results as a table or passes its JSON through.
#pragma once

#include "argus/cli/command.h"

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace argus::cli {

extern const std::string_view kBenchSummary;
extern const std::string_view kBenchHelp;

int run_bench(std::span<const std::string> args, Environment &env);

// The pieces, exposed for tests.
namespace bench {

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
  std::string out, err;
};

// Runs `command` with /bin/sh -c in its own process group (stdin /dev/null),
// capturing stdout and stderr; after `timeout` the whole group is killed.
ShellResult run_shell(const std::string &command, std::chrono::milliseconds timeout);

} // namespace bench
} // namespace argus::cli
