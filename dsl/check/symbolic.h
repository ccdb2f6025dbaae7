// Internal: Z3 proofs of global-memory bounds for all sizes, blocks,
// threads and iterations that the assume(...) facts allow.
#pragma once

#include "argus/dsl/checker.h"
#include "summary.h"

#include <map>
#include <string>

namespace argus::check::detail {

// For every global-tensor index of the kernel body that is a closed-form
// integer expression (sizes, launch coordinates, loop variables, locals
// assigned once, single-return @device calls): proves 0 <= index < extent.
// A sat answer is replayed on the concrete machine and reported as
// out-of-bounds when it replays; unknown, time-outs and answers that do not
// replay are W0901 warnings. Counts go to report.proofs / proof_failures, how
// many global accesses were proved for all sizes to `reach`.
void prove_symbolically(const CheckedFile &file, const sema::FunctionInfo &kernel,
                        const CheckerOptions &options, KernelReport &report, ProofReach &reach);

// For a kernel whose grid the interpreter sampled (`sampled_grid`: which
// blocks ran; empty when every block of every instance did, and then nothing
// is done): proves, for all sizes, that no two distinct blocks of one launch
// touch the same element of a global tensor where one of them writes it (each
// pair of accesses, two copies of the kernel's terms in one Z3 context). A
// sat model that replays on the interpreter (its two blocks) is an E0902
// found by Z3; unknown answers and candidates that do not replay are W0901.
// A W0901 at the kernel names the tensors the proof did not cover; with none
// it covers every block. Counts go to report.proofs / proof_failures.
// `reach` says whether the grid was sampled and the proof covered it.
void prove_grid_races(const CheckedFile &file, const sema::FunctionInfo &kernel,
                      const CheckerOptions &options, const std::string &sampled_grid,
                      KernelReport &report, ProofReach &reach);

// Races for all sizes, for a kernel with no intrinsic, no async copy and no
// @device call: every pair of accesses (one a write) proved apart for two
// distinct threads of one block in one barrier interval (global and shared
// memory; the barriers must be passed alike by every thread of a block) and,
// for global memory, for two distinct blocks (already by prove_grid_races
// when the grid was sampled). True when every pair is proved, otherwise
// reach.races_why says why not; what it cannot prove is no W0901 (the
// instances were checked), a race it finds that replays is an error.
bool prove_races_for_all_sizes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                               const CheckerOptions &options, KernelReport &report,
                               ProofReach &reach);

// Tags and the store contract for all sizes (tag_proof.cpp), for a kernel
// whose data moves only through subscripts (no intrinsic, async copy, view,
// shuffle or @device call): every assert_tag field holds, and every store
// into a tagged tensor delivers the element's fields, for every size, block,
// thread and iteration. Each write a read can see is a fresh copy of its
// writer. A counterexample is minimized and replayed on the interpreter
// (its sizes, its block): a mismatch there is an E0905 found by Z3; what the
// proof cannot decide leaves the verdict at the instances (reach.tags_why /
// stores_why say why) and adds no W0901.
void prove_tags_for_all_sizes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const CheckerOptions &options, KernelReport &report,
                              ProofReach &reach);

// The verdict of every provable index at fixed sizes: (line, column) of the
// subscript → whether some thread, block and iteration is out of bounds.
// The tests compare it with the concrete machine's verdicts.
std::map<std::pair<uint32_t, uint32_t>, bool>
bounds_verdicts_at(const CheckedFile &file, const sema::FunctionInfo &kernel,
                   const std::map<std::string, int64_t> &sizes, unsigned timeout_ms);

} // namespace argus::check::detail
