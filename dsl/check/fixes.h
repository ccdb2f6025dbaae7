// Internal: mechanical fixes for violations, each verified by re-checking the
// edited kernel before it is listed in a violation's data["fixes"].
#pragma once

#include "argus/dsl/checker.h"

namespace argus::check::detail {

// Adds data["fixes"] ids and data["edits"][id] to the violations that have a
// verified mechanical fix: argus.fix.insert-barrier (race),
// argus.fix.insert-cluster-sync (a race between blocks of a cluster, a block
// that may exit under its peer's remote access),
// argus.fix.stage-index (tag mismatch between operands loaded from
// differently indexed stages), argus.fix.pad-shared (bank conflict).
void attach_fixes(const CheckedFile &file, const sema::FunctionInfo &kernel,
                  const CheckerOptions &options, KernelReport &report);

// Candidate paddings of the shared tile `buffer` made by a plain
// `make_shared(shape, dtype)` in `fn` (no layout=): the last dimension grows
// by 1, 2, 4, 8 or 16 elements, smallest first. Not verified.
std::vector<std::vector<TextEdit>>
pad_shared_candidates(const CheckedFile &file, const ast::Function &fn, const std::string &buffer);

} // namespace argus::check::detail
