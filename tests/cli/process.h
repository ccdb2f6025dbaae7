// Runs a program as a subprocess and captures what it writes, for the tests
// that drive the real `argus` binary.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

// A child the test talks to: its stdin is a pipe written while its stdout and
// stderr are read (so neither side can block the other). For the language
// server's transcripts, which send, wait for answers, and send more.
class InteractiveProcess {
public:
  InteractiveProcess(const std::string &program, const std::vector<std::string> &args,
                     const ProcessOptions &options = {});
  ~InteractiveProcess(); // kills the child if it still runs
  InteractiveProcess(const InteractiveProcess &) = delete;
  InteractiveProcess &operator=(const InteractiveProcess &) = delete;

  bool started() const { return pid_ > 0; }
  // Writes all of `bytes` (reading output meanwhile); false when the child
  // closed its stdin or the deadline passed.
  bool write(std::string_view bytes, std::chrono::steady_clock::time_point deadline);
  // Reads output until `done()` holds (checked after each read) or the
  // deadline passes; returns done().
  bool read_until(const std::function<bool()> &done,
                  std::chrono::steady_clock::time_point deadline);
  // Closes stdin, reads to the end and waits for the exit (killing the child
  // at the deadline).
  ProcessResult finish(std::chrono::steady_clock::time_point deadline);

  const std::string &out() const { return result_.out; }
  const std::string &err() const { return result_.err; }

private:
  // One poll round over the open descriptors (stdin too when `want_write`).
  void pump(bool want_write, int timeout_ms, bool &writable);

  int pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  ProcessResult result_;
};

} // namespace argus::testing
