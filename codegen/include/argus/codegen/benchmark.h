// One benchmark run of an artifact through a runner (docs/artifacts.md): the
// command from the template, the process, and what its output says. `argus
// bench` prints the outcome as a table or JSON; the language server's
// `argus.benchmark` serialises it. Which templates may run is the caller's
// decision (runner_allowed): the CLI takes its user's command line, the server
// only what its own command line allows.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace argus::codegen {

struct BenchmarkRequest {
  std::string artifact;                 // the artifact directory (made absolute)
  std::string target;                   // "sm90a" or "gfx942"
  std::string runner_template;          // kDefaultRunnerTemplate when empty
  std::vector<std::string> runner_args; // one word each, after the template's
  double timeout_s = 300;
  const std::atomic<bool> *cancelled = nullptr; // kills the runner when set
};

struct BenchmarkOutcome {
  // Every result correct (or refused) and the runner exited with 0.
  bool ok = false;
  // Where it stopped when not ok: "template" (it does not split), "timeout",
  // "runner" (did not start, a signal, no JSON, a non-zero exit), "results"
  // (some kernel not correct), or the runner's own error object's stage.
  std::string stage;
  std::string error;   // why not ok, one line
  std::string command; // what ran, as a shell would show it
  bool cancelled = false;
  int exit_code = -1;
  std::string stderr_text; // the runner's stderr, whole
  // The result objects the runner printed (also when some are not correct).
  std::vector<nlohmann::ordered_json> results;
  // The runner's error object ({"error": "...", "stage": ...}) when it printed one.
  std::optional<nlohmann::ordered_json> runner_error;
};

BenchmarkOutcome run_benchmark(const BenchmarkRequest &request);

} // namespace argus::codegen
