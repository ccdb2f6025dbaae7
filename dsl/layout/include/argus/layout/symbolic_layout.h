// Symbolic layouts: CuTe layouts whose shapes and strides may be symbolic
// expressions, evaluated at symbolic indices or coordinates
// (docs/symbolic.md).
//
// The layout function is the one of layout.h (column-major idx2crd with the
// last mode of each tuple unreduced, then the inner product with the
// strides); here every step builds an ExprRef in an ExprContext, so
// evaluating the wgmma accumulator layout at index tid + 128·v yields
// "128 * (tid % 4) + (tid // 4) % 8 + 16 * (tid // 32) + ...". The results
// feed the checker (as SMT terms) and the code generator (as C++).
#pragma once

#include "argus/layout/expr.h"
#include "argus/layout/layout.h"
#include "argus/layout/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus::layout {

// An expression leaf or a tuple of ExprTuples: the symbolic IntTuple. A
// default-constructed ExprTuple is a null leaf.
class ExprTuple {
public:
  ExprTuple() = default;
  ExprTuple(ExprRef leaf) : leaf_(leaf) {}
  static ExprTuple tuple(std::vector<ExprTuple> elements);

  bool is_leaf() const { return !is_tuple_; }
  bool is_tuple() const { return is_tuple_; }
  // Precondition: is_leaf().
  ExprRef value() const { return leaf_; }
  // Empty for a leaf.
  const std::vector<ExprTuple> &elements() const { return elements_; }
  // Top-level modes; a leaf has rank 1.
  int rank() const { return is_tuple_ ? static_cast<int>(elements_.size()) : 1; }
  // Precondition: 0 <= i < rank().
  const ExprTuple &operator[](int i) const { return is_tuple_ ? elements_[i] : *this; }

  friend bool operator==(const ExprTuple &a, const ExprTuple &b);

private:
  bool is_tuple_ = false;
  ExprRef leaf_;
  std::vector<ExprTuple> elements_;
};

// Constants for the leaves of `t`.
ExprTuple to_expr_tuple(ExprContext &ctx, const IntTuple &t);
// The IntTuple, when every leaf is a constant.
std::optional<IntTuple> to_int_tuple(const ExprTuple &t);
int leaf_count(const ExprTuple &t);
bool congruent(const ExprTuple &a, const ExprTuple &b);
ExprTuple flatten(const ExprTuple &t);
// The product of the leaves (1 for the empty tuple).
ExprRef size(ExprContext &ctx, const ExprTuple &shape);
// CuTe notation with expression leaves: "(M,(4,2 * K))".
std::string to_string(const ExprTuple &t);

// ---------------------------------------------------------------------------
struct SymbolicLayout {
  ExprTuple shape;
  ExprTuple stride;

  friend bool operator==(const SymbolicLayout &, const SymbolicLayout &) = default;
};

// Checked construction: shape and stride congruent, no null leaves.
Result<SymbolicLayout> make_symbolic_layout(ExprTuple shape, ExprTuple stride);
// A concrete layout with constant leaves.
SymbolicLayout to_symbolic(ExprContext &ctx, const Layout &layout);
// The concrete layout, when every leaf is a constant and it is well formed.
std::optional<Layout> to_layout(const SymbolicLayout &layout);
// Compact column-major (exclusive prefix products from the left) and
// row-major strides of a symbolic shape.
SymbolicLayout make_symbolic_layout_left(ExprContext &ctx, const ExprTuple &shape);
SymbolicLayout make_symbolic_layout_right(ExprContext &ctx, const ExprTuple &shape);
ExprRef size(ExprContext &ctx, const SymbolicLayout &layout);
std::string to_string(const SymbolicLayout &layout); // "(M,4):(1,M)"

// Parses CuTe notation whose leaves are products of integers and names:
// "(M,(4,K)):(1,(M,4*M))". A name that is not yet a symbol of `ctx` is
// declared with the range [1, +inf) (sizes and non-zero strides).
Result<ExprTuple> parse_expr_tuple(ExprContext &ctx, std::string_view text);
Result<SymbolicLayout> parse_symbolic_layout(ExprContext &ctx, std::string_view text);

// ---------------------------------------------------------------------------
// The natural coordinate of index `index` in `shape`: column-major, and the
// last mode of each tuple is not reduced (indices past the size extend it).
ExprTuple idx2crd(ExprContext &ctx, ExprRef index, const ExprTuple &shape);
// A coordinate weakly congruent to `shape` (a leaf may stand for a tuple
// mode, which is then decomposed); fails when the ranks do not match.
Result<ExprTuple> idx2crd(ExprContext &ctx, const ExprTuple &coord, const ExprTuple &shape);
// Σ c_k·d_k over the natural coordinate of `coord`.
Result<ExprRef> crd2idx(ExprContext &ctx, const ExprTuple &coord, const ExprTuple &shape,
                        const ExprTuple &stride);

// The layout function at an index (a leaf coordinate).
ExprRef evaluate(ExprContext &ctx, const SymbolicLayout &layout, ExprRef index);
// ... at a coordinate weakly congruent to the shape, e.g. (thread, value) for
// a thread-value layout.
Result<ExprRef> evaluate(ExprContext &ctx, const SymbolicLayout &layout, const ExprTuple &coord);
// A concrete layout at a symbolic index or coordinate.
ExprRef evaluate(ExprContext &ctx, const Layout &layout, ExprRef index);
Result<ExprRef> evaluate(ExprContext &ctx, const Layout &layout, const ExprTuple &coord);

// ---------------------------------------------------------------------------
// Swizzles: f(x) = x ^ ((x & Y) >> S) (<< -S when S < 0), built symbolically.
ExprRef apply_swizzle(ExprContext &ctx, const Swizzle &swizzle, ExprRef offset);
// swizzle(L(i)·E), the byte offset of element i of a swizzled layout.
ExprRef byte_offset(ExprContext &ctx, const SwizzledLayout &layout, ExprRef index);
// swizzle(L(i)·E) / E, its element offset.
ExprRef evaluate(ExprContext &ctx, const SwizzledLayout &layout, ExprRef index);

} // namespace argus::layout
