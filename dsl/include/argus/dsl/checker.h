// The data-flow invariant checker (dsl/check): tags, tag assertions, built-in
// safety contracts and performance lints, with counterexamples.
//
// How it decides (docs/checker.md):
//   1. Problem sizes. Z3 picks concrete size instances that satisfy the
//      kernel's `assume(...)` facts: the smallest one, and the smallest one
//      with at least two blocks along every grid dimension.
//   2. Exhaustive execution. For each instance, every block of the grid and
//      every thread of a block run through a concrete SIMT interpreter (all
//      threads of a block in lockstep, with an active mask per thread).
//      Memory is a per-cell write log (writer, barrier phase, pending async
//      copy, program point, tag); tags flow through loads, stores, views,
//      shuffles, async copies and matrix instructions.
//   3. Symbolic proofs. Every global-memory access index and every tag
//      assertion whose operands are closed-form integer expressions is also
//      proved with Z3 for all sizes, blocks, threads and iterations that the
//      `assume` facts allow; a model becomes a counterexample that the
//      concrete interpreter replays before it is reported.
// Violations carry the thread, iteration, element, expected and actual tag
// fields, the program point and the write site (`Diagnostic.data`).
#pragma once

#include "argus/dsl/checker_options.h"
#include "argus/dsl/diagnostic.h"
#include "argus/dsl/frontend.h"
#include "argus/dsl/verification.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace argus::check {

// One violation as data, before it becomes a Diagnostic.
struct Violation {
  std::string kind;  // "tag-mismatch", "race", ... (docs/diagnostics.md)
  std::string check; // the contract or assertion: "assert_tag", "mma-operands", ...
  Range range;       // the program point
  std::string message;
  nlohmann::json data; // the structured counterexample (Diagnostic.data)
  std::vector<RelatedInformation> related;
  bool warning = false;
  // Only from a traced replay: the element's history, from its origin to the
  // violation (docs/checker.md, "Counterexample traces").
  nlohmann::json history;
};

// What was checked for one kernel.
struct KernelReport {
  std::string kernel;
  std::vector<Violation> violations;
  std::vector<std::map<std::string, int64_t>> instances; // sizes executed
  std::vector<std::string> bounded_loops; // loops cut at unroll_bound ("line 12: kt")
  int64_t blocks_run = 0;
  int64_t proofs = 0;         // Z3 queries answered unsat (proved)
  int64_t proof_failures = 0; // sat answers (counterexamples)
  bool from_cache = false;
  // Where the text the result depends on lay when it was computed: the
  // kernel (with its decorators), each @device function, each module
  // constant, in the order of the cache key. A report reused for text that
  // moved is shifted segment by segment to where these are now.
  std::vector<Range> segments;
  // The check was cancelled or ran past its deadline: what it holds is
  // partial (a deadline adds a W0901 saying so). Never cached.
  bool interrupted = false;
  // Each property's verdict: proved for all sizes, checked at the instances,
  // violated, not checked, absent (verification.h).
  VerificationSummary summary;
};

// Results per kernel, keyed by a hash of the tokens of the kernel, the
// @device functions and module constants it can see (each with lines counted
// from its own first line, so text that only moved up or down keeps its key;
// comments and docstrings left out), and the options. Thread-safe.
// At most `capacity` reports are kept; the oldest stored goes first (a long
// editing session makes one report per distinct kernel text).
class CheckCache {
public:
  // What check_kernels did with the kernels it was given this cache for.
  struct Stats {
    int64_t proved = 0; // checked (executed and proved): not in the cache, or not reusable
    int64_t reused = 0; // served from the cache
    int64_t moved = 0;  // of those, reports shifted to where their text moved
  };

  explicit CheckCache(size_t capacity = 256) : capacity_(capacity == 0 ? 1 : capacity) {}
  std::optional<KernelReport> find(uint64_t key) const;
  void store(uint64_t key, const KernelReport &report);
  size_t size() const;

  void count_proved();
  void count_reused(bool moved);
  Stats stats() const;

private:
  mutable std::mutex mutex_;
  size_t capacity_;
  Stats stats_;
  std::unordered_map<uint64_t, KernelReport> reports_;
  std::deque<uint64_t> order_; // keys, oldest first
};

// Told of each kernel's report as soon as it is there (cache hits first, then
// each kernel as its check ends): `index` is the report's place in the result.
// Called from the checking threads, one call at a time.
using KernelDone = std::function<void(size_t index, const KernelReport &report)>;

// Checks every kernel of a file the front end accepted without errors. The
// reports keep the kernels' order; with `priority_line` (0-based), the kernel
// whose definition holds that line is checked first (the one being edited).
std::vector<KernelReport> check_kernels(const CheckedFile &file, const CheckerOptions &options,
                                        CheckCache *cache = nullptr,
                                        const KernelDone &on_kernel = {},
                                        std::optional<uint32_t> priority_line = std::nullopt);

// The violations of `reports` as diagnostics (codes E09xx / W09xx).
std::vector<Diagnostic> to_diagnostics(const std::vector<KernelReport> &reports);

// Runs the concrete interpreter for one kernel at the sizes and block of a
// counterexample (`data` of a violation) and says whether a violation of the
// same kind is found at the same program point for the same thread. With
// `history`, the replay also records where every element it moves came from
// and, when it confirms the violation, sets *history to the offending
// element's history (an array of steps from its origin to the violation;
// docs/checker.md, "Counterexample traces").
bool replay(const CheckedFile &file, const std::string &kernel, const nlohmann::json &data,
            nlohmann::json *history = nullptr);

// Whether the kernel `kernel` of `file` accepts `sizes`: every integer
// parameter has a value and its `assume` facts about sizes hold there (what
// the generated launcher checks). nullopt: no such kernel. The agent uses it
// to refuse a version that narrows the sizes its start accepted.
std::optional<bool> accepts_sizes(const CheckedFile &file, const std::string &kernel,
                                  const std::map<std::string, int64_t> &sizes);

// A text edit in the file (zero-based, UTF-8 byte columns).
struct TextEdit {
  Range range;
  std::string new_text;
};

// The edits of a mechanical fix a violation lists in data["fixes"] (kept in
// data["edits"]), or nothing when it lists no such fix. Every fix was
// verified when it was listed: the edited file re-checks with fewer
// violations of that code and no new error. The edits apply to the text the
// violation was found in.
std::optional<std::vector<TextEdit>> fix_edits(const nlohmann::json &data,
                                               const std::string &fix_id);

// Applies edits (non-overlapping) to a text.
std::string apply_edits(const std::string &text, std::vector<TextEdit> edits,
                        const SourceFile &source);

} // namespace argus::check
