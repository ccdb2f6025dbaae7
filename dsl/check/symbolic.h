// Internal: Z3 proofs of global-memory bounds for all sizes, blocks,
// threads and iterations that the assume(...) facts allow.
#pragma once

#include "argus/dsl/checker.h"

#include <map>
#include <string>

namespace argus::check::detail {

// For every global-tensor index of the kernel body that is a closed-form
// integer expression (sizes, launch coordinates, loop variables, locals
// assigned once, single-return @device calls): proves 0 <= index < extent.
// A sat answer is replayed on the concrete machine and reported as
// out-of-bounds when it replays; unknown, time-outs and answers that do not
// replay are W0901 warnings. Counts go to report.proofs / proof_failures.
void prove_symbolically(const CheckedFile &file, const sema::FunctionInfo &kernel,
                        const CheckerOptions &options, KernelReport &report);

// The verdict of every provable index at fixed sizes: (line, column) of the
// subscript → whether some thread, block and iteration is out of bounds.
// The tests compare it with the concrete machine's verdicts.
std::map<std::pair<uint32_t, uint32_t>, bool>
bounds_verdicts_at(const CheckedFile &file, const sema::FunctionInfo &kernel,
                   const std::map<std::string, int64_t> &sizes, unsigned timeout_ms);

} // namespace argus::check::detail
