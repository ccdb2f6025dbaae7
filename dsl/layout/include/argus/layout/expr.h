// Symbolic integer expressions for layouts (docs/symbolic.md).
//
// A layout evaluated at symbolic coordinates (a thread id, a loop variable) or
// with symbolic sizes (M, K) yields an expression tree over +, *, floor
// division, modulo, xor, and, or, shifts, min and max. The checker turns these
// expressions into SMT terms; the code generator prints them as C++.
//
// Expressions live in an ExprContext, which owns every node and hash-conses
// them: structurally equal expressions are the same node, so ExprRef equality
// is a pointer comparison and hashing is O(1). Every constructor simplifies
// (constant folding, canonical operand order, like terms, div/mod rules that
// use the operands' value ranges); each rule is an identity of the integers
// under the semantics below, guarded by the range facts it needs, so
// simplification never changes the value of an expression at any assignment
// that satisfies the symbols' facts.
//
// Semantics (the domain is int64; layout coordinates and sizes are >= 0):
//  - a / b is FLOOR division and a % b = a - b * (a / b) (the sign of b), as
//    in Python. Both are undefined for b == 0. For a >= 0 and b > 0 they agree
//    with C++'s / and %.
//  - &, |, ^, <<, >> act on two's complement int64; a >> s is arithmetic
//    (floor(a / 2^s)); a << s is a * 2^s. Shift counts outside [0, 62] are
//    undefined.
//  - Values are assumed to fit in int64 (layout arithmetic does); evaluate()
//    reports an overflow instead of wrapping.
//
// Symbols carry facts: a closed range [lo, hi] (default [0, +inf), since
// layout coordinates are non-negative) and a divisor they are a multiple of.
// The simplifier trusts these facts; evaluate() checks them.
#pragma once

#include "argus/layout/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace argus::layout {

// ---------------------------------------------------------------------------
// A closed integer interval; kNegInf/kPosInf stand for an open end.
inline constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();

struct Interval {
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;

  static constexpr Interval all() { return {kNegInf, kPosInf}; }
  static constexpr Interval point(int64_t v) { return {v, v}; }
  static constexpr Interval non_negative() { return {0, kPosInf}; }
  static constexpr Interval positive() { return {1, kPosInf}; }
  static constexpr Interval closed(int64_t lo, int64_t hi) { return {lo, hi}; }
  // [lo, end): closed(lo, end - 1).
  static constexpr Interval half_open(int64_t lo, int64_t end) { return {lo, end - 1}; }

  bool has_lower() const { return lo != kNegInf; }
  bool has_upper() const { return hi != kPosInf; }
  bool is_point() const { return lo == hi && has_lower(); }
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  // Every value is >= 0 / >= 1.
  bool non_negative_values() const { return lo >= 0; }
  bool positive_values() const { return lo >= 1; }

  friend bool operator==(const Interval &, const Interval &) = default;
};
std::string to_string(const Interval &r); // "[0, 127]", "[0, +inf)"

// What is known about a symbol's value.
struct SymbolFacts {
  Interval range = Interval::non_negative();
  int64_t multiple_of = 1; // the value is a multiple of this (>= 1)

  friend bool operator==(const SymbolFacts &, const SymbolFacts &) = default;
};

enum class ExprKind : uint8_t {
  Constant,
  Symbol,
  Add,      // n-ary sum; a constant operand, if any, is last
  Mul,      // coefficient() times the product of the (non-constant) operands
  FloorDiv, // binary
  Mod,      // binary
  Xor,      // n-ary
  And,      // n-ary
  Or,       // n-ary
  Shl,      // binary; only with a non-constant shift count
  Shr,      // binary; only with a non-constant shift count
  Min,      // n-ary
  Max,      // n-ary
};
std::string_view to_string(ExprKind kind);

class ExprContext;
struct ExprNode;

// A cheap handle to a hash-consed node. Two ExprRefs of one context are equal
// exactly when the expressions are structurally equal (after simplification).
// A default-constructed ExprRef is null.
class ExprRef {
public:
  ExprRef() = default;
  // Internal: the handle of a node owned by an ExprContext.
  static ExprRef from_node(const ExprNode *node) { return ExprRef(node); }

  bool is_null() const { return node_ == nullptr; }
  explicit operator bool() const { return node_ != nullptr; }

  inline ExprKind kind() const;
  bool is_constant() const { return kind() == ExprKind::Constant; }
  bool is_symbol() const { return kind() == ExprKind::Symbol; }
  // Precondition: is_constant().
  inline int64_t constant() const;
  std::optional<int64_t> as_constant() const {
    return is_constant() ? std::optional<int64_t>(constant()) : std::nullopt;
  }
  // Precondition: is_symbol().
  inline std::string_view symbol_name() const;
  inline const SymbolFacts &symbol_facts() const;
  // Children in canonical order (a Mul's coefficient is not an operand).
  inline std::span<const ExprRef> operands() const;
  ExprRef operand(size_t i) const { return operands()[i]; }
  // A Mul's constant factor; 1 for every other kind.
  inline int64_t coefficient() const;

  // Sound facts about the value at every assignment satisfying the symbols'
  // facts: it lies in range() and is a multiple of multiple_of() (0 means
  // the value is 0).
  inline Interval range() const;
  inline int64_t multiple_of() const;

  // Structural hash: deterministic across runs and contexts.
  inline uint64_t hash() const;
  // Creation order within the context (distinct nodes, distinct ids).
  inline uint32_t id() const;
  inline ExprContext &context() const;
  const ExprNode *node() const { return node_; }

  friend bool operator==(ExprRef a, ExprRef b) { return a.node_ == b.node_; }

private:
  explicit ExprRef(const ExprNode *node) : node_(node) {}
  const ExprNode *node_ = nullptr;
};

// The node behind an ExprRef: immutable once created, owned by its context.
struct ExprNode {
  ExprKind kind = ExprKind::Constant;
  uint32_t id = 0;
  uint32_t num_operands = 0;
  int64_t value = 0; // Constant: the value; Mul: the coefficient; else 0
  const ExprRef *operands = nullptr;
  std::string_view name; // Symbol
  SymbolFacts facts;     // Symbol: as declared
  Interval range;
  int64_t multiple = 1;
  // The symbol that leads this expression in canonical order (null when
  // there is none); used by compare().
  const ExprNode *lead = nullptr;
  uint64_t hash = 0;
  ExprContext *context = nullptr;
};

ExprKind ExprRef::kind() const { return node_->kind; }
int64_t ExprRef::constant() const { return node_->value; }
std::string_view ExprRef::symbol_name() const { return node_->name; }
const SymbolFacts &ExprRef::symbol_facts() const { return node_->facts; }
std::span<const ExprRef> ExprRef::operands() const {
  return {node_->operands, node_->num_operands};
}
int64_t ExprRef::coefficient() const { return node_->kind == ExprKind::Mul ? node_->value : 1; }
Interval ExprRef::range() const { return node_->range; }
int64_t ExprRef::multiple_of() const { return node_->multiple; }
uint64_t ExprRef::hash() const { return node_->hash; }
uint32_t ExprRef::id() const { return node_->id; }
ExprContext &ExprRef::context() const { return *node_->context; }

// Structural total order used for canonical operand order: 0 exactly when
// a == b. Deterministic across runs (independent of creation order).
int compare(ExprRef a, ExprRef b);
struct ExprStructuralLess {
  bool operator()(ExprRef a, ExprRef b) const { return compare(a, b) < 0; }
};

// ---------------------------------------------------------------------------
struct ExprOptions {
  // false: build the tree as written (still hash-consed, no folding or
  // rewriting), for tests and debugging.
  bool simplify = true;
};

// Owns and hash-conses expression nodes. Not thread-safe; nodes live until
// the context dies and cannot be mixed with another context's.
class ExprContext {
public:
  explicit ExprContext(ExprOptions options = {});
  ~ExprContext();
  ExprContext(const ExprContext &) = delete;
  ExprContext &operator=(const ExprContext &) = delete;

  const ExprOptions &options() const { return options_; }

  ExprRef constant(int64_t value);
  // A symbol; the same name with the same facts is the same node. Declare a
  // name once per context: two declarations with different facts are two
  // different symbols that print the same.
  ExprRef symbol(std::string_view name, SymbolFacts facts = {});
  ExprRef symbol(std::string_view name, Interval range, int64_t multiple_of = 1) {
    return symbol(name, SymbolFacts{range, multiple_of});
  }
  // The most recently declared symbol with this name, or null.
  ExprRef find_symbol(std::string_view name) const;

  ExprRef add(ExprRef a, ExprRef b);
  ExprRef add(std::span<const ExprRef> terms);
  ExprRef sub(ExprRef a, ExprRef b);
  ExprRef neg(ExprRef a);
  ExprRef mul(ExprRef a, ExprRef b);
  ExprRef mul(std::span<const ExprRef> factors);
  ExprRef floor_div(ExprRef a, ExprRef b);
  ExprRef mod(ExprRef a, ExprRef b);
  ExprRef bit_xor(ExprRef a, ExprRef b);
  ExprRef bit_and(ExprRef a, ExprRef b);
  ExprRef bit_or(ExprRef a, ExprRef b);
  ExprRef shl(ExprRef a, ExprRef b);
  ExprRef shr(ExprRef a, ExprRef b);
  ExprRef min(ExprRef a, ExprRef b);
  ExprRef max(ExprRef a, ExprRef b);

  // Number of distinct nodes created so far.
  size_t node_count() const;

private:
  struct Impl;
  ExprOptions options_;
  std::unique_ptr<Impl> impl_;
};

// Operators build through the operands' context ("/" is FLOOR division).
// Precondition: non-null operands of one context.
ExprRef operator+(ExprRef a, ExprRef b);
ExprRef operator+(ExprRef a, int64_t b);
ExprRef operator+(int64_t a, ExprRef b);
ExprRef operator-(ExprRef a, ExprRef b);
ExprRef operator-(ExprRef a, int64_t b);
ExprRef operator-(int64_t a, ExprRef b);
ExprRef operator-(ExprRef a);
ExprRef operator*(ExprRef a, ExprRef b);
ExprRef operator*(ExprRef a, int64_t b);
ExprRef operator*(int64_t a, ExprRef b);
ExprRef operator/(ExprRef a, ExprRef b);
ExprRef operator/(ExprRef a, int64_t b);
ExprRef operator/(int64_t a, ExprRef b);
ExprRef operator%(ExprRef a, ExprRef b);
ExprRef operator%(ExprRef a, int64_t b);
ExprRef operator%(int64_t a, ExprRef b);
ExprRef operator^(ExprRef a, ExprRef b);
ExprRef operator^(ExprRef a, int64_t b);
ExprRef operator&(ExprRef a, ExprRef b);
ExprRef operator&(ExprRef a, int64_t b);
ExprRef operator|(ExprRef a, ExprRef b);
ExprRef operator|(ExprRef a, int64_t b);
ExprRef operator<<(ExprRef a, int64_t b);
ExprRef operator>>(ExprRef a, int64_t b);
ExprRef min(ExprRef a, ExprRef b);
ExprRef max(ExprRef a, ExprRef b);

// ---------------------------------------------------------------------------
// Values for symbols, by name.
class Bindings {
public:
  Bindings &set(std::string_view name, int64_t value);
  // Precondition: symbol.is_symbol().
  Bindings &set(ExprRef symbol, int64_t value) { return set(symbol.symbol_name(), value); }
  std::optional<int64_t> get(std::string_view name) const;
  bool empty() const { return values_.empty(); }

private:
  std::vector<std::pair<std::string, int64_t>> values_;
};

// The value of `e` under `bindings`. Fails on an unbound symbol, a value that
// violates its symbol's facts, division or modulo by zero, a shift count
// outside [0, 62], or int64 overflow.
Result<int64_t> evaluate(ExprRef e, const Bindings &bindings);

// `e` with every symbol s for which `replace(s)` is non-null replaced by it,
// rebuilt (and so simplified) in e's context.
ExprRef substitute(ExprRef e, const std::function<ExprRef(ExprRef symbol)> &replace);
// Bound symbols replaced by constants.
ExprRef substitute(ExprRef e, const Bindings &bindings);

// Number of distinct nodes reachable from `e` (its DAG size).
size_t dag_size(ExprRef e);
// Whether `symbol` occurs in `e`.
bool depends_on(ExprRef e, ExprRef symbol);
// The symbols occurring in `e`, in structural order.
std::vector<ExprRef> symbols_of(ExprRef e);

// ---------------------------------------------------------------------------
// Printing.
//
// to_string: mathematical form in Python/Argus syntax, where // and % are
// floor division and modulo: "128 * (tid % 4) + (tid // 4) % 8".
std::string to_string(ExprRef e);
std::ostream &operator<<(std::ostream &os, ExprRef e);

struct CppPrintOptions {
  // Division and modulo whose dividend is not provably >= 0 (or whose divisor
  // is not a provably positive non-power of two) print as calls of these
  // helpers, which must implement floor semantics; the code generator's
  // prelude defines them.
  std::string floor_div_function = "argus_floordiv";
  std::string floor_mod_function = "argus_floormod";
  std::string min_function = "min";
  std::string max_function = "max";
};
// C++ form: division and modulo by a power of two become shifts and masks
// ("(tid >> 2) & 7"), which are exact for every int64 in two's complement;
// other divisions print as / and % when the dividend is provably >= 0 and the
// divisor provably positive. Constants outside int32 get an LL suffix.
std::string to_cpp(ExprRef e, const CppPrintOptions &options = {});

} // namespace argus::layout

template <> struct std::hash<argus::layout::ExprRef> {
  size_t operator()(argus::layout::ExprRef e) const noexcept {
    return std::hash<const void *>()(e.node());
  }
};
