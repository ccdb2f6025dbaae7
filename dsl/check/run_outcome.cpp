// The runs of a kernel: whole, or in two halves of its grid at once (run_outcome.h).
#include "run_outcome.h"
#include "machine.h"

#include <exception>
#include <set>
#include <thread>

namespace argus::check::detail {

namespace {

RunOutcome outcome_of(Machine &machine) {
  RunOutcome out;
  out.visited = std::move(machine.visited_);
  out.loop_iterations = std::move(machine.loop_iterations_);
  out.stopped = machine.stopped_;
  out.interrupted = machine.interrupted();
  out.blocks_run = machine.blocks_run();
  out.sampled_blocks = machine.sampled_blocks();
  out.grid_dim = machine.grid_dim();
  out.bounded_loops = machine.bounded_loops();
  out.violations = machine.take_violations();
  return out;
}

// Whether the blocks of the two halves could not have seen each other: no
// global buffer both read and written, none updated atomically, no element
// written in both halves.
bool independent(const Machine &a, const Machine &b) {
  if (a.buffers_.size() < a.global_buffers_ || b.buffers_.size() < a.global_buffers_ ||
      a.global_buffers_ != b.global_buffers_)
    return false;
  for (size_t g = 0; g < a.global_buffers_; ++g) {
    const Buffer &x = a.buffers_[g], &y = b.buffers_[g];
    if (x.space != MemorySpace::Global || x.log.size() != y.log.size() || !x.atomics.empty() ||
        !y.atomics.empty())
      return false;
    bool read = false, written = false;
    for (size_t i = 0; i < x.log.size(); ++i) {
      const CellLog &p = x.log[i], &q = y.log[i];
      if (p.writes > 0 && q.writes > 0)
        return false;
      read = read || p.read_epoch >= 0 || q.read_epoch >= 0;
      written = written || p.writes > 0 || q.writes > 0;
      if (read && written)
        return false;
    }
  }
  return true;
}

} // namespace

RunOutcome run_once(const CheckedFile &file, const sema::FunctionInfo &kernel,
                    const CheckerOptions &options, const std::map<std::string, int64_t> &sizes,
                    const Contents &contents) {
  Machine machine(file, kernel, options);
  machine.contents_ = contents;
  machine.run(sizes);
  return outcome_of(machine);
}

std::optional<RunOutcome> run_split(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                    const CheckerOptions &options,
                                    const std::map<std::string, int64_t> &sizes,
                                    const Contents &contents) {
  Machine first(file, kernel, options), second(file, kernel, options);
  first.contents_ = contents;
  second.contents_ = contents;
  bool first_ran = false, second_ran = false;
  std::exception_ptr error, other_error;
  std::thread other([&] {
    try {
      second_ran = second.run_part(sizes, 1, 2);
    } catch (...) {
      other_error = std::current_exception();
    }
  });
  // The other thread is joined whatever this half does (a Z3 failure throws).
  try {
    first_ran = first.run_part(sizes, 0, 2);
  } catch (...) {
    error = std::current_exception();
  }
  other.join();
  if (error || other_error)
    std::rethrow_exception(error ? error : other_error);
  // One Machine would have stopped where the two together ran out of
  // statements; a stop, or blocks that may have met, is a run made whole.
  if (!first_ran || !second_ran || first.stopped_ || second.stopped_ ||
      first.steps_ + second.steps_ > options.max_steps || !independent(first, second))
    return std::nullopt;
  RunOutcome out = outcome_of(first);
  RunOutcome rest = outcome_of(second);
  // As one Machine reports: each kind at a program point once, the first
  // block's (`reported_` then also holds the second half's, for the
  // coverage check below).
  for (Violation &v : rest.violations)
    if (first.reported_.insert({v.kind, Machine::site_key(v.range)}).second)
      out.violations.push_back(std::move(v));
  // The coverage of assert_covered, over the writes of both halves (no
  // element has writes in both).
  for (size_t g = 0; g < first.global_buffers_; ++g) {
    Buffer &x = first.buffers_[g];
    const Buffer &y = second.buffers_[g];
    if (!x.covered && y.covered) { // assert_covered ran in the second half only
      x.covered = true;
      x.covered_at = y.covered_at;
    }
    if (!x.covered)
      continue;
    for (size_t i = 0; i < x.log.size(); ++i)
      x.log[i].writes += y.log[i].writes;
  }
  first.check_coverage(first.all_blocks_);
  for (Violation &v : first.take_violations())
    out.violations.push_back(std::move(v));
  out.visited.insert(rest.visited.begin(), rest.visited.end());
  for (const auto &[loop, most] : rest.loop_iterations) {
    int64_t &all = out.loop_iterations[loop];
    all = std::max(all, most);
  }
  out.interrupted = out.interrupted || rest.interrupted;
  out.blocks_run += rest.blocks_run;
  std::set<std::pair<uint32_t, uint32_t>> loops;
  for (const auto &[range, name] : out.bounded_loops)
    loops.insert({range.begin.line, range.begin.column});
  for (auto &[range, name] : rest.bounded_loops)
    if (loops.insert({range.begin.line, range.begin.column}).second)
      out.bounded_loops.emplace_back(range, name);
  return out;
}

} // namespace argus::check::detail
