// The one way Argus starts another program: an argument vector, never a
// shell. File names, settings and command arguments therefore reach a program
// as single words whatever characters they hold (`$(...)`, backticks, quotes,
// newlines). Used by the nvcc compile, `argus bench` and `argus.benchmark`.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

namespace argus::codegen {

struct SpawnOptions {
  std::chrono::milliseconds timeout{0}; // 0: no limit
  const std::atomic<bool> *cancelled = nullptr;
  std::string cwd;           // empty: ours
  bool merge_stderr = false; // stderr into `out` (compiler messages in order)
  size_t max_output = size_t{64} << 20;
};

struct SpawnResult {
  bool started = false; // false: `error` says why (no such program, ...)
  std::string error;
  int exit_code = -1; // -1 when killed by a signal or not started
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::string out, err;
};

// Runs argv[0] (searched on PATH when it has no '/') with argv as its
// arguments, stdin /dev/null, in its own process group; after the timeout or
// soon after `*cancelled` becomes true the whole group is killed.
SpawnResult spawn(const std::vector<std::string> &argv, const SpawnOptions &options = {});

// Quotes a word for /bin/sh: 'it'\''s'. For display, and for a remote shell
// (ssh joins its arguments into one command line there).
std::string shell_quote(std::string_view word);

// argv as one line a person can paste into a shell.
std::string command_line(const std::vector<std::string> &argv);

} // namespace argus::codegen
