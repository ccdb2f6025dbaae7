// Runs a program as a subprocess and captures what it writes, for the tests
// that drive the real `argus` binary.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace argus::testing {

struct ProcessOptions {
  // Environment changes: a value sets the variable, nullopt removes it.
  std::vector<std::pair<std::string, std::optional<std::string>>> env;
  // The child's working directory; empty: ours.
  std::string working_directory;
  // Gives the child a pseudo-terminal as stdout (to test `--color=auto`).
  bool stdout_is_terminal = false;
  // What the child reads on stdin; nullopt: /dev/null.
  std::optional<std::string> stdin_text;
  // The child is killed (and the result marked timed_out) after this long.
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
};

struct ProcessResult {
  int exit_code = -1; // -1 when the child did not exit normally
  int signal = 0;     // the signal that ended it, if any
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Whether this machine can give a child a pseudo-terminal (some containers cannot).
bool pseudo_terminals_available();

// Runs `program` with `args` (stdin is `options.stdin_text`, else /dev/null). Sanitizer runtimes in
// the child are told to exit with codes 86 (ASan/LSan) and 87 (UBSan), so a memory error can never
// pass for Argus's own exit status 1.
ProcessResult run_process(const std::string &program, const std::vector<std::string> &args,
                          const ProcessOptions &options = {});

} // namespace argus::testing
