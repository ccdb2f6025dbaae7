// Options of the invariant checker (dsl/check), separate from checker.h so
// the front end's options can hold them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace argus::check {

struct CheckerOptions {
  // Iterations of one loop executed per thread before the rest is skipped
  // (the loop is then reported as bounded).
  int64_t unroll_bound = 256;
  // Blocks executed per size instance; larger grids run their first and
  // last blocks only, and coverage is then not proved (W0901).
  int64_t max_blocks = 64;
  // Cells (elements) of all global tensors of one instance together.
  int64_t max_global_cells = 1 << 22;
  // Statements executed per size instance (all threads of a block count
  // once) before the checker stops with W0901: nested loops cannot hang it.
  int64_t max_steps = 2'000'000;
  // Cells of shared and local memory of one block (local: per thread times
  // threads) before the checker stops with W0901.
  int64_t max_block_cells = 1 << 24;
  // Z3 time limit per query.
  unsigned query_timeout_ms = 2000;
  // Run the Z3 proofs of step 3 (the concrete instances always run).
  bool symbolic = true;
  // Performance lints (warnings).
  bool lints = true;
  // Verify and attach mechanical fixes (each costs a re-check of the edited file).
  bool fixes = true;
  // Size instances to use instead of the ones Z3 picks (tests, replay).
  std::vector<std::map<std::string, int64_t>> forced_instances;
  // Sizes to run in addition to Z3's instances (argus check --sizes): e.g. a
  // K deep enough for a pipeline's steady state.
  std::vector<std::map<std::string, int64_t>> extra_instances;

  // Set by another thread when the result is no longer wanted (the language
  // server's superseded document versions): the check ends early and its
  // reports are marked interrupted (never cached). May be null.
  const std::atomic<bool> *cancel = nullptr;
  // A check still running at this time ends with W0901 "time limit" for what
  // was not checked. The default never comes.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Each kernel's own limit, from when its check starts (0: none): a file of
  // many kernels gets every kernel checked, not the first ones only.
  std::chrono::milliseconds kernel_time_limit{0};
  // Kernels of one file checked at once (each on its own thread, with its own
  // Z3 context); the reports keep the kernels' order.
  unsigned kernel_threads = 1;
  // Runs of one kernel (a size instance at one choice of tensor contents)
  // checked at once, merged in order: the report is the one of a single
  // thread. check_kernels gives a kernel the threads its file's other kernels
  // do not use.
  unsigned run_threads = 1;
  // Check only the kernel of this name (empty: all); a fix's re-check of the
  // edited file needs its own kernel only.
  std::string only_kernel;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  bool past_deadline() const {
    return deadline != std::chrono::steady_clock::time_point::max() &&
           std::chrono::steady_clock::now() >= deadline;
  }

  static CheckerOptions for_tests() { return CheckerOptions{}; }
};

class CheckCache;

} // namespace argus::check
