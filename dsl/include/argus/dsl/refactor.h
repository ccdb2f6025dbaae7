// Knowledge-base refactors (dsl/refactor): rewrites of a kernel that a GPU
// programmer would do by hand — vectorizing a scalar copy loop, padding a
// shared tile whose accesses conflict on banks, double-buffering a K loop —
// computed on the AST and offered only when verified.
//
// Verified means: the edited file passes the front end without errors, and
// the invariant checker (with the caller's options, fixes off) finds in the
// edited kernel no violation kind more often than in the original and no
// more errors; a refactor that addresses a lint also has fewer violations of
// that lint. The other kernels of the file are not touched (docs/refactors.md).
#pragma once

#include "argus/dsl/checker.h"
#include "argus/dsl/frontend.h"

#include <string>
#include <string_view>
#include <vector>

namespace argus::refactor {

struct Refactor {
  std::string id;                     // stable: "vectorize-copy", "pad-shared", "double-buffer"
  std::string title;                  // what it does, for a menu
  std::string kernel;                 // the kernel it rewrites
  std::vector<check::TextEdit> edits; // verified; apply to file.source->text()
};

// The ids refactors_at can return, in a stable order.
const std::vector<std::string_view> &refactor_ids();

// The verified refactors of the kernels whose source overlaps `range`
// (zero-based lines, UTF-8 byte columns), each anchored at a statement the
// range overlaps. A file with front-end errors has none. Each candidate costs
// one re-check of the edited file; only the kernels overlapping the range are
// considered.
std::vector<Refactor> refactors_at(const CheckedFile &file, Range range,
                                   const check::CheckerOptions &options);

} // namespace argus::refactor
