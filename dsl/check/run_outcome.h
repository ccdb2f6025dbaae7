// Internal: what one run of a kernel (a size instance at one content choice)
// leaves for the kernel's report, and the two ways to make it: every block in
// order on one Machine (run_once), or the blocks in two halves at once where
// no block can see another's effects (run_split).
#pragma once

#include "contents.h"

#include "argus/dsl/checker.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace argus::check::detail {

struct RunOutcome {
  std::unordered_set<const ast::Stmt *> visited;
  std::unordered_map<const ast::Stmt *, int64_t> loop_iterations;
  bool stopped = false, interrupted = false;
  int64_t blocks_run = 0;
  std::vector<std::array<int64_t, 3>> sampled_blocks;
  std::array<int64_t, 3> grid_dim{};
  std::vector<std::pair<Range, std::string>> bounded_loops;
  std::vector<Violation> violations;
};

RunOutcome run_once(const CheckedFile &file, const sema::FunctionInfo &kernel,
                    const CheckerOptions &options, const std::map<std::string, int64_t> &sizes,
                    const Contents &contents);

// The same outcome as run_once, from two Machines that run the first and the
// second half of the grid's blocks at once (on this thread and one more).
// The blocks of a run see each other only through global memory, so the
// halves are the run itself when, afterwards, no global tensor was both read
// and written, none was updated atomically, no element was written by both
// halves, and the statements of both fit the run's budget; the violations
// are then merged in block order, each program point reported once, as one
// Machine reports them, and the coverage of assert_covered is checked over
// the writes of both (a large grid: the blocks sampled from it, in two
// halves). Otherwise (or with fewer than two blocks) nothing: the caller
// runs it whole.
std::optional<RunOutcome> run_split(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                    const CheckerOptions &options,
                                    const std::map<std::string, int64_t> &sizes,
                                    const Contents &contents);

} // namespace argus::check::detail
