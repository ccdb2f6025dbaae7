// `argus agent eval` (issue 14, item 5): the loop over a suite of tasks,
// judged as an outsider would judge it.
//
// A task (agent/tasks/NAME.json) is a starting kernel, its @bench, sizes the
// loop never sees (held-out), a budget and, for fast_p, what the reference
// library computes. Per task the loop runs as `argus agent optimize` does;
// then the best version is run by the runner at every held-out size, with
// fresh inputs: a version that is wrong, or refuses a size the start
// accepted (a shape hard-coded into a knob), is not correct. Reported per
// task and overall: correct rate, speedup over the start, and fast_p — the
// share of tasks whose best version is correct and faster than the
// reference library by more than p (p = 1: faster at all), timed by a
// program the command line names, in the same run.
#pragma once

#include "argus/agent/optimize.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::agent {

struct Task {
  std::string name;                     // the task file's stem
  std::string path;                     // the task file
  std::string file;                     // the starting kernel (resolved against the task's folder)
  std::string kernel;                   // the kernel its @bench times
  int budget = 10;                      // steps
  std::map<std::string, int64_t> sizes; // the @bench's sizes
  std::vector<std::map<std::string, int64_t>> held_out; // sizes the loop never sees
  std::string library; // the reference library's operation ("matmul", "softmax"); empty: none
};

struct TaskSuite {
  std::vector<Task> tasks;
  std::vector<std::string> errors; // "FILE: what is wrong", one per bad task file
};

// Every *.json of `dir`, in name order; a task file that does not validate is
// an error (a field missing or of the wrong type, a kernel file that does not
// exist, no held-out size, a held-out size that equals the bench's).
TaskSuite load_tasks(const std::string &dir);

struct EvalOptions {
  OptimizeOptions loop; // file, kernel, budget and out_dir are set per task
  std::string out_dir = "agent-eval";
  // Times the reference library: words with {op} (Task::library), {sizes}
  // ("M=4096,N=4096,K=4096") and {task}; it prints a JSON object with
  // "median_ms". Unset: fast_p is unknown.
  std::optional<std::string> library;
  std::chrono::milliseconds library_timeout{std::chrono::minutes(10)};
  double p = 1.0;
  std::optional<int> budget; // at most this many steps per task (a quick pass)
};

struct TaskResult {
  std::string name;
  std::string error; // the loop could not run (the start does not check or benchmark, ...)
  double baseline_seconds = 0, best_seconds = 0;
  int steps = 0;
  bool correct = false; // the best version is correct at every held-out size
  nlohmann::json held_out = nlohmann::json::array(); // {sizes, correct, why} per size
  std::optional<double> library_seconds;
  std::string library_error;
  double speedup() const { return best_seconds > 0 ? baseline_seconds / best_seconds : 0; }
};

struct EvalSummary {
  std::vector<TaskResult> tasks;
  double correct_rate = 0;
  double geomean_speedup = 0;   // over the correct tasks (1 where none)
  std::optional<double> fast_p; // unknown without a library timer for every task
  nlohmann::json json;          // eval.json
  std::string report;           // eval.md
};

EvalSummary evaluate_tasks(const std::vector<LspClient *> &clients, const KnowledgeBase &kb,
                           const std::vector<Task> &tasks, const EvalOptions &options,
                           const std::function<void(const std::string &)> &progress = {});

} // namespace argus::agent
