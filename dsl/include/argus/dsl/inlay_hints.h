// Inlay hints in editor terms: the types the source does not write and the
// trip counts of loops; the language server turns them into LSP InlayHints.
#pragma once

#include "argus/dsl/frontend.h"

#include <string>
#include <vector>

namespace argus {

struct InlayHint {
  enum class Kind { Type, TripCount };
  Kind kind = Kind::Type;
  Position position; // where the label goes (zero-based line, UTF-8 byte column)
  std::string label; // ": shared (64, 32) bf16 · (64,32):(32,1)", "× 16", "× K/32"
};

// The hints whose position lies in `range`, in source order:
// - after the first assignment of each local without an annotation, its type
//   (for a tensor view: memory space, shape, dtype and, when known, its
//   layout in CuTe notation);
// - after the `range(...)` of each for loop, its trip count when it is a
//   constant ("× 16") or an expression over sizes ("× K/32"; locals assigned
//   once are replaced by their values, constants by theirs).
std::vector<InlayHint> inlay_hints(const CheckedFile &file, Range range);

// The trip count of `for v in range(...)`'s iterable as text, or empty when it
// cannot be said (a data-dependent bound, a step that is not a constant).
std::string trip_count(const CheckedFile &file, const ast::Function &function,
                       const ast::Expr &range_call);

} // namespace argus
