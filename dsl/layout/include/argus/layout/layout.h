// The concrete layout algebra: hierarchical integer tuples, layouts
// (shape:stride), and the CuTe operations on them, with CuTe semantics
// (docs/layout.md; ../shared/design/layout-algebra.md).
//
// Values are plain data; operations are free functions named like the
// mathematics (composition, complement, logical_divide, ...). Every operation
// that can fail on some input — a malformed string, an inadmissible
// composition, an int64 overflow — returns a Result and never aborts. This
// library depends only on the C++ standard library.
#pragma once

#include "argus/layout/result.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace argus::layout {

// ---------------------------------------------------------------------------
// IntTuple: an int64 leaf or a tuple of IntTuples. "(4)" (a rank-1 tuple) and
// "4" (a leaf) are different values; "()" is the empty tuple.
class IntTuple {
public:
  IntTuple() = default; // the leaf 0
  IntTuple(int64_t value) : value_(value) {}
  static IntTuple tuple(std::vector<IntTuple> elements);

  bool is_leaf() const { return !is_tuple_; }
  bool is_tuple() const { return is_tuple_; }
  // Precondition: is_leaf().
  int64_t value() const { return value_; }
  // The elements of a tuple; empty for a leaf.
  const std::vector<IntTuple> &elements() const { return elements_; }
  // Number of top-level modes; a leaf has rank 1.
  int rank() const { return is_tuple_ ? static_cast<int>(elements_.size()) : 1; }
  // Mode i (a leaf is its own mode 0). Precondition: 0 <= i < rank().
  const IntTuple &operator[](int i) const { return is_tuple_ ? elements_[i] : *this; }

  friend bool operator==(const IntTuple &a, const IntTuple &b);

private:
  bool is_tuple_ = false;
  int64_t value_ = 0;
  std::vector<IntTuple> elements_;
};

int rank(const IntTuple &t);
// A leaf has depth 0; a tuple 1 + the largest depth of its elements.
int depth(const IntTuple &t);
// The product of all leaves (1 for the empty tuple); overflow is an error.
Result<int64_t> size(const IntTuple &t);
// The leaves in order, as a tuple; a leaf stays a leaf.
IntTuple flatten(const IntTuple &t);
// Number of leaves.
int leaf_count(const IntTuple &t);
// Same tree structure (a leaf matches only a leaf).
bool congruent(const IntTuple &a, const IntTuple &b);
// `a` has the structure of a prefix of `b` with leaves allowed where `b` has
// tuples ("(1,5)" against "(3,(2,3))").
bool weakly_congruent(const IntTuple &a, const IntTuple &b);

// CuTe notation: "4", "(2,(1,6))", "()". Whitespace is allowed between tokens.
Result<IntTuple> parse_int_tuple(std::string_view text);
std::string to_string(const IntTuple &t);
std::ostream &operator<<(std::ostream &os, const IntTuple &t);

// Natural coordinate of `coord` in `shape`, column-first (mode 0 fastest); the
// last mode of each tuple is not reduced, so indices past the size extend it.
// `coord` may be an int, or weakly congruent to `shape` ("(1,5)" in
// "(3,(2,3))" is "(1,(1,2))").
Result<IntTuple> idx2crd(const IntTuple &coord, const IntTuple &shape);
// Σ c_k·d_k over the natural coordinate of `coord`; `coord` may be an int,
// weakly congruent to `shape`, or a flat tuple with one entry per leaf.
Result<int64_t> crd2idx(const IntTuple &coord, const IntTuple &shape, const IntTuple &stride);
// The column-major (LayoutLeft) index of `coord` in `shape`.
Result<int64_t> crd2idx(const IntTuple &coord, const IntTuple &shape);

// ---------------------------------------------------------------------------
// Layout: a shape and a congruent stride; a function from indices (or
// coordinates) to offsets.
class Layout {
public:
  Layout() : shape_(1), stride_(0) {} // 1:0
  // Precondition: congruent(shape, stride) and every shape leaf >= 1. Use
  // make_layout to check untrusted values.
  Layout(IntTuple shape, IntTuple stride) : shape_(std::move(shape)), stride_(std::move(stride)) {}

  const IntTuple &shape() const { return shape_; }
  const IntTuple &stride() const { return stride_; }

  // L(i): the offset of index i (last mode unreduced), or of a coordinate.
  Result<int64_t> operator()(int64_t index) const;
  Result<int64_t> operator()(const IntTuple &coord) const;

  friend bool operator==(const Layout &a, const Layout &b) = default;

private:
  IntTuple shape_;
  IntTuple stride_;
};

// Checked construction: congruent, shape leaves >= 1, size fits int64.
Result<Layout> make_layout(IntTuple shape, IntTuple stride);
// The layout whose modes are `modes`: (L0, L1, ...). One mode stays a tuple
// of one mode.
Layout make_layout(const std::vector<Layout> &modes);
// Compact column-major (LayoutLeft: exclusive prefix products from the left)
// and row-major (LayoutRight: from the right) layouts of a shape.
Result<Layout> make_layout_left(const IntTuple &shape);
Result<Layout> make_layout_right(const IntTuple &shape);

int rank(const Layout &l);
int depth(const Layout &l);
Result<int64_t> size(const Layout &l);
// L(size-1)+1 for layouts with non-negative strides; in general one past the
// largest offset (1 + Σ (s_k-1)·d_k over positive strides).
Result<int64_t> cosize(const Layout &l);
// Mode i (0-based) as a layout; an error when i is out of range.
Result<Layout> mode(const Layout &l, int i);
// Nested mode access: get<1, 0>(l) is mode 0 of mode 1.
template <int... Is> Result<Layout> get(const Layout &l) {
  Result<Layout> r = l;
  ((r = r.ok() ? mode(*r, Is) : r), ...);
  return r;
}
Layout flatten(const Layout &l);
// Parse/print "((2,2),3):((24,2),8)", "12:1". A shape alone is not a layout
// here (see make_layout_left).
Result<Layout> parse_layout(std::string_view text);
std::string to_string(const Layout &l);
std::ostream &operator<<(std::ostream &os, const Layout &l);

// L(index) and L(coord) as free functions.
Result<int64_t> evaluate(const Layout &l, int64_t index);
Result<int64_t> evaluate(const Layout &l, const IntTuple &coord);

// Flatten, drop size-1 modes, merge s0:d0,s1:d1 into s0·s1:d0 when
// d1 = s0·d0; an empty result is 1:0. With a profile, coalesce each mode of
// the profile separately (a leaf in the profile: that mode becomes flat).
Result<Layout> coalesce(const Layout &l);
Result<Layout> coalesce(const Layout &l, const IntTuple &profile);
// Flatten, drop size-1 and stride-0 modes, coalesce (1:0 if nothing remains).
Result<Layout> filter(const Layout &l);

// ---------------------------------------------------------------------------
// A tiler: one layout for a whole layout, or a tuple of tilers applied mode
// by mode (extra modes of the tiled layout pass through).
class Tiler {
public:
  Tiler(Layout layout) : is_layout_(true), layout_(std::move(layout)) {}
  Tiler(std::vector<Tiler> modes) : is_layout_(false), modes_(std::move(modes)) {}
  // A shape as a tiler: each leaf n is n:1, tuples by mode.
  static Tiler from_shape(const IntTuple &shape);

  bool is_layout() const { return is_layout_; }
  // Precondition: is_layout().
  const Layout &layout() const { return layout_; }
  // Precondition: !is_layout().
  const std::vector<Tiler> &modes() const { return modes_; }

  friend bool operator==(const Tiler &a, const Tiler &b);

private:
  bool is_layout_;
  Layout layout_;
  std::vector<Tiler> modes_;
};
std::string to_string(const Tiler &t);

// A∘B: R(i) = A(B(i)) for i < size(B), with R's shape refining B's. B with
// a tuple shape is composed mode by mode; a single mode N:r uses the strict
// rule of docs/layout.md (s_k % r' == 0 or r' % s_k == 0, and B's remaining
// size divisible by what each mode takes), and the modes of B must not carry
// from one mode of coalesce(A) into the next. A failure says which mode and
// which condition. Past size(A), A extends along the last mode of
// coalesce(A).
Result<Layout> composition(const Layout &a, const Layout &b);
Result<Layout> composition(const Layout &a, const Tiler &b);

// The layout C, sorted by stride, that fills the holes of A up to cotarget:
// (A, C) is a bijection onto [0, size(A)·size(C)). Fails when A's strides do
// not allow one (overlapping or non-dividing modes, negative strides).
Result<Layout> complement(const Layout &a, int64_t cotarget);
// cotarget = cosize(filter(a)).
Result<Layout> complement(const Layout &a);

// A ∘ (B, complement(B, size A)), by mode for tuple tilers.
Result<Layout> logical_divide(const Layout &a, const Tiler &b);
// ((tile modes), (rest modes)).
Result<Layout> zipped_divide(const Layout &a, const Tiler &b);
// ((tile modes), rest0, rest1, ...).
Result<Layout> tiled_divide(const Layout &a, const Tiler &b);
// (tile0, tile1, ..., rest0, rest1, ...).
Result<Layout> flat_divide(const Layout &a, const Tiler &b);

// (A, complement(A, size(A)·cosize(B)) ∘ B), by mode for tuple tilers.
Result<Layout> logical_product(const Layout &a, const Tiler &b);
// Mode k = (A_k, B'_k) after padding both to the same rank with 1:0.
Result<Layout> blocked_product(const Layout &a, const Layout &b);
// Mode k = (B'_k, A_k).
Result<Layout> raked_product(const Layout &a, const Layout &b);

enum class Major { Left, Right };
// Repeat `block` (blocked_product) until it covers `shape`; each mode of
// `shape` must be a multiple of the matching mode of `block`. The repeats are
// ordered column-major (Left) or row-major (Right). The result is coalesced
// mode by mode.
Result<Layout> tile_to_shape(const Layout &block, const IntTuple &shape, Major order = Major::Left);

// R with A(R(j)) = j for j in the largest contiguous prefix [0, size(R)) of
// A's image (1:0 when 0 is not followed by 1 in the image).
Result<Layout> right_inverse(const Layout &a);
// R with R(A(i)) = i for i < size(A); fails when A is not injective.
Result<Layout> left_inverse(const Layout &a);

// ---------------------------------------------------------------------------
// Swizzle<B,M,S>: f(x) = x XOR shift(x & Y, S), Y = (2^B-1) << (M + max(0,S)),
// shifted right by S when S >= 0, left by -S otherwise. An involution.
struct Swizzle {
  int bits = 0;  // B
  int base = 0;  // M
  int shift = 0; // S

  int64_t operator()(int64_t offset) const;
  // The bits read (Y, "yyy") and the bits they flip (Z, "zzz").
  uint64_t yyy_mask() const;
  uint64_t zzz_mask() const;

  friend bool operator==(const Swizzle &a, const Swizzle &b) = default;
};
// Requires B >= 0, M >= 0, |S| >= B, and every mask bit below bit 63.
Result<Swizzle> make_swizzle(int bits, int base, int shift);
// From the Y and Z masks: equal popcounts, contiguous, disjoint; ⟨0b1000, 0b0100⟩
// is Swizzle<1,2,1>.
Result<Swizzle> make_swizzle_from_masks(uint64_t yyy_mask, uint64_t zzz_mask);
std::string to_string(const Swizzle &s); // "Sw<3,4,3>"

// swizzle ∘ layout. With element_bytes = 1 the swizzle acts on the layout's
// offsets; with element_bytes = E (a power of two) it acts on byte addresses
// of E-byte elements, as shared-memory swizzles do: offset(i) =
// swizzle(layout(i)·E) / E, which needs M >= log2(E).
struct SwizzledLayout {
  Swizzle swizzle;
  Layout layout;
  int64_t element_bytes = 1;

  friend bool operator==(const SwizzledLayout &a, const SwizzledLayout &b) = default;
};
Result<SwizzledLayout> composition(const Swizzle &swizzle, const Layout &layout,
                                   int64_t element_bytes = 1);
// The element offset of index i.
Result<int64_t> evaluate(const SwizzledLayout &l, int64_t index);
// The byte offset of index i: swizzle(layout(i)·E).
Result<int64_t> byte_offset(const SwizzledLayout &l, int64_t index);
// "Sw<3,4,3> o (8,64):(64,1)"; with E > 1 the element size follows:
// "Sw<3,4,3> o (8,64):(64,1) (byte-address swizzle, 2-byte elements)".
std::string to_string(const SwizzledLayout &l);

} // namespace argus::layout
