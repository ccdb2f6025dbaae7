// The layout of a tensor view, derived once from how the view is made: a
// subscript, t.tile(s) and its tile coordinates, view(t, Tensor(...)) and
// subview(t, offsets, sizes[, strides]). Shapes, strides and the byte offset
// are layout::ExprRef terms over what the caller makes of the leaves (an
// index becomes C++ for the code generator, its source text for a hover).
//
// The code generator (codegen/lower) and the editor queries (dsl/query) both
// build on view_of(); the checker's interpreter takes the same steps on
// per-thread integers (dsl/check/eval.cpp), which no symbolic term could do
// at its speed, and tests/checker/view_model_test.cpp holds the two to one result.
#pragma once

#include "argus/dsl/sema.h"
#include "argus/layout/expr.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace argus::sema {

struct SymbolicView {
  int buffer = -1; // the caller's id of the underlying tensor
  ScalarKind dtype = ScalarKind::F32;
  std::vector<layout::ExprRef> shape;
  std::vector<layout::ExprRef> strides; // in elements of dtype
  layout::ExprRef offset;               // bytes from the buffer's start (before any swizzle)
  std::vector<layout::ExprRef> tile;    // t.tile(s) not yet indexed
};

struct ViewHooks {
  // The view a name (or a call the model does not make: make_shared, an
  // intrinsic's result) stands for, or nullopt after reporting.
  std::function<std::optional<SymbolicView>(const ast::Expr &)> base;
  // An integer expression (an index, a size) as a term.
  std::function<layout::ExprRef(const ast::Expr &)> integer;
  // A view the model cannot make, with the reason.
  std::function<void(const Range &, const std::string &)> error;
};

std::optional<SymbolicView> view_of(const SemaResult &sema, layout::ExprContext &ctx,
                                    const ast::Expr &e, const ViewHooks &hooks);

// Row-major strides (in elements) over a shape.
std::vector<layout::ExprRef> row_major(layout::ExprContext &ctx,
                                       const std::vector<layout::ExprRef> &shape);
// Whether the view's elements are consecutive in row-major order (extents of
// 1 are skipped).
bool contiguous(layout::ExprContext &ctx, const SymbolicView &v);
// The view of `v` at `indices` of its leading dimensions.
SymbolicView index_view(const SymbolicView &v, const std::vector<layout::ExprRef> &indices);

} // namespace argus::sema
