// Construction, hash-consing and simplification of symbolic expressions.
// Every rewrite below is an identity of the integers under floor division
// (docs/symbolic.md lists them with their side conditions).
#include "argus/layout/expr.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <deque>
#include <numeric>

namespace argus::layout {
namespace {

// ---------------------------------------------------------------------------
// Integer helpers.

// Constant folding wraps (two's complement) instead of invoking undefined
// behaviour; values are assumed to fit (see expr.h).
int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
// Floor division / modulo. Precondition: b != 0 and not (a == INT64_MIN and b == -1).
int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}
int64_t fmod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
bool division_defined(int64_t a, int64_t b) { return b != 0 && !(a == kNegInf && b == -1); }
bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
bool is_bitwise(ExprKind k) {
  return k == ExprKind::Xor || k == ExprKind::And || k == ExprKind::Or;
}
// Number of bits needed for a non-negative value.
int bit_length(int64_t v) { return 64 - std::countl_zero(static_cast<uint64_t>(v)); }
int64_t abs_or_big(int64_t v) { return v == kNegInf ? (int64_t{1} << 62) : (v < 0 ? -v : v); }
// Trailing zero bits guaranteed by "multiple of m" (m == 0: the value is 0).
int trailing_zeros_of_multiple(int64_t m) {
  return m == 0 ? 62 : std::min(62, std::countr_zero(static_cast<uint64_t>(m)));
}

// ---------------------------------------------------------------------------
// Interval arithmetic with open ends. A bound that overflows saturates to the
// open end (values themselves are assumed to fit in int64).
int64_t lo_add(int64_t a, int64_t b) {
  if (a == kNegInf || b == kNegInf)
    return kNegInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a > 0 ? kPosInf - 1 : kNegInf;
  return r;
}
int64_t hi_add(int64_t a, int64_t b) {
  if (a == kPosInf || b == kPosInf)
    return kPosInf;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return a < 0 ? kNegInf + 1 : kPosInf;
  return r;
}
// A product of two bounds; an infinite factor gives an infinite result
// (0 * inf = 0, as intervals need).
int64_t bound_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  const bool negative = (a < 0) != (b < 0);
  if (a == kNegInf || a == kPosInf || b == kNegInf || b == kPosInf)
    return negative ? kNegInf : kPosInf;
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return negative ? kNegInf : kPosInf;
  return r;
}

Interval iv_add(Interval a, Interval b) { return {lo_add(a.lo, b.lo), hi_add(a.hi, b.hi)}; }
Interval iv_mul(Interval a, Interval b) {
  const int64_t c[4] = {bound_mul(a.lo, b.lo), bound_mul(a.lo, b.hi), bound_mul(a.hi, b.lo),
                        bound_mul(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}
Interval iv_scale(Interval a, int64_t c) { return iv_mul(a, Interval::point(c)); }
Interval iv_of_constant(int64_t v) {
  if (v == kNegInf || v == kPosInf)
    return Interval::all();
  return Interval::point(v);
}
// floor(x / y) at one corner, y >= 1 (y may be +inf).
int64_t corner_div(int64_t x, int64_t y) {
  if (x == kNegInf || x == kPosInf)
    return x;
  if (y == kPosInf)
    return x >= 0 ? 0 : -1;
  return fdiv(x, y);
}
// Precondition: d.lo >= 1. floor(x/y) grows with x, so the extremes are at
// x = a.lo / a.hi with either end of d.
Interval iv_div_pos(Interval a, Interval d) {
  return {std::min(corner_div(a.lo, d.lo), corner_div(a.lo, d.hi)),
          std::max(corner_div(a.hi, d.lo), corner_div(a.hi, d.hi))};
}
// Precondition: d.lo >= 1. Floor modulo lies in [0, d-1].
Interval iv_mod_pos(Interval a, Interval d) {
  if (a.lo >= 0 && a.hi < d.lo)
    return a;
  Interval r{0, d.hi == kPosInf ? kPosInf : d.hi - 1};
  if (a.lo >= 0)
    r.hi = std::min(r.hi, a.hi);
  return r;
}
// All values of non-negative operands fit below 2^bits.
int64_t all_ones_covering(int64_t hi) {
  if (hi == kPosInf)
    return kPosInf;
  const int bits = bit_length(hi);
  return bits >= 63 ? kPosInf : (int64_t{1} << bits) - 1;
}

int kind_rank(ExprKind kind) {
  switch (kind) {
  case ExprKind::Symbol:
    return 0;
  case ExprKind::Mul:
    return 1;
  case ExprKind::Mod:
    return 2;
  case ExprKind::FloorDiv:
    return 3;
  case ExprKind::And:
    return 4;
  case ExprKind::Xor:
    return 5;
  case ExprKind::Or:
    return 6;
  case ExprKind::Shl:
    return 7;
  case ExprKind::Shr:
    return 8;
  case ExprKind::Min:
    return 9;
  case ExprKind::Max:
    return 10;
  case ExprKind::Add:
    return 11;
  case ExprKind::Constant:
    return 12;
  }
  return 13;
}

int compare_symbols(const ExprNode *a, const ExprNode *b) {
  if (a == b)
    return 0;
  if (int c = a->name.compare(b->name); c != 0)
    return c < 0 ? -1 : 1;
  const SymbolFacts &fa = a->facts;
  const SymbolFacts &fb = b->facts;
  if (fa.range.lo != fb.range.lo)
    return fa.range.lo < fb.range.lo ? -1 : 1;
  if (fa.range.hi != fb.range.hi)
    return fa.range.hi < fb.range.hi ? -1 : 1;
  if (fa.multiple_of != fb.multiple_of)
    return fa.multiple_of < fb.multiple_of ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0); // different contexts only
}

int compare_nodes(const ExprNode *a, const ExprNode *b) {
  if (a == b)
    return 0;
  if (a->lead != b->lead) {
    if (a->lead == nullptr)
      return 1;
    if (b->lead == nullptr)
      return -1;
    if (int c = compare_symbols(a->lead, b->lead); c != 0)
      return c;
  }
  if (a->kind != b->kind)
    return kind_rank(a->kind) < kind_rank(b->kind) ? -1 : 1;
  switch (a->kind) {
  case ExprKind::Constant:
    return a->value < b->value ? -1 : (a->value > b->value ? 1 : 0);
  case ExprKind::Symbol:
    return compare_symbols(a, b);
  default:
    break;
  }
  const uint32_t n = std::min(a->num_operands, b->num_operands);
  for (uint32_t i = 0; i < n; ++i) {
    if (int c = compare_nodes(a->operands[i].node(), b->operands[i].node()); c != 0)
      return c;
  }
  if (a->num_operands != b->num_operands)
    return a->num_operands < b->num_operands ? -1 : 1;
  if (a->value != b->value)
    return a->value < b->value ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}
uint64_t finalize(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}
uint64_t hash_string(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

struct Term {
  ExprRef base; // never a constant, an Add, or a Mul with a coefficient != 1
  int64_t coeff;
};
struct Sum {
  std::vector<Term> terms;
  int64_t constant = 0;
};

bool less_term(const Term &a, const Term &b) { return compare(a.base, b.base) < 0; }

// The factors of a term's base (a plain product's operands, or the base).
std::span<const ExprRef> factors_of(const ExprRef &base) {
  if (base.kind() == ExprKind::Mul)
    return base.operands();
  return {&base, 1};
}

} // namespace

int compare(ExprRef a, ExprRef b) { return compare_nodes(a.node(), b.node()); }

std::string_view to_string(ExprKind kind) {
  switch (kind) {
  case ExprKind::Constant:
    return "constant";
  case ExprKind::Symbol:
    return "symbol";
  case ExprKind::Add:
    return "add";
  case ExprKind::Mul:
    return "mul";
  case ExprKind::FloorDiv:
    return "floordiv";
  case ExprKind::Mod:
    return "mod";
  case ExprKind::Xor:
    return "xor";
  case ExprKind::And:
    return "and";
  case ExprKind::Or:
    return "or";
  case ExprKind::Shl:
    return "shl";
  case ExprKind::Shr:
    return "shr";
  case ExprKind::Min:
    return "min";
  case ExprKind::Max:
    return "max";
  }
  return "?";
}

std::string to_string(const Interval &r) {
  // Appends only: GCC 12 at -O3 warns (-Wrestrict) on "[" + std::to_string(...).
  std::string s;
  if (r.has_lower()) {
    s.append(1, '[');
    s.append(std::to_string(r.lo));
  } else {
    s.append("(-inf");
  }
  s.append(", ");
  if (r.has_upper()) {
    s.append(std::to_string(r.hi));
    s.append(1, ']');
  } else {
    s.append("+inf)");
  }
  return s;
}

// ---------------------------------------------------------------------------
struct ExprContext::Impl {
  ExprContext *self;
  bool simplify;

  static constexpr size_t kNodeChunk = 256;
  static constexpr size_t kOperandChunk = 1024;
  std::vector<std::unique_ptr<ExprNode[]>> node_chunks;
  size_t node_chunk_used = kNodeChunk;
  std::vector<std::unique_ptr<ExprRef[]>> operand_chunks;
  size_t operand_used = kOperandChunk;
  std::vector<std::unique_ptr<ExprRef[]>> big_operand_chunks;
  std::deque<std::string> names;
  std::vector<const ExprNode *> table; // open addressing, power-of-two size
  size_t table_count = 0;
  std::vector<const ExprNode *> symbols;
  uint32_t next_id = 0;

  Impl(ExprContext *s, bool simp) : self(s), simplify(simp), table(512, nullptr) {}

  // ----- allocation and interning
  ExprNode *new_node() {
    if (node_chunk_used == kNodeChunk) {
      node_chunks.push_back(std::make_unique<ExprNode[]>(kNodeChunk));
      node_chunk_used = 0;
    }
    return &node_chunks.back()[node_chunk_used++];
  }
  const ExprRef *copy_operands(std::span<const ExprRef> ops) {
    if (ops.empty())
      return nullptr;
    ExprRef *dst;
    if (ops.size() > kOperandChunk / 4) {
      big_operand_chunks.push_back(std::make_unique<ExprRef[]>(ops.size()));
      dst = big_operand_chunks.back().get();
    } else {
      if (operand_used + ops.size() > kOperandChunk) {
        operand_chunks.push_back(std::make_unique<ExprRef[]>(kOperandChunk));
        operand_used = 0;
      }
      dst = &operand_chunks.back()[operand_used];
      operand_used += ops.size();
    }
    std::copy(ops.begin(), ops.end(), dst);
    return dst;
  }

  static uint64_t key_hash(ExprKind kind, int64_t value, std::span<const ExprRef> ops,
                           std::string_view name, const SymbolFacts *facts) {
    uint64_t h = mix(0x51ed270b27f3a1c5ULL, static_cast<uint64_t>(kind));
    h = mix(h, static_cast<uint64_t>(value));
    if (facts != nullptr) {
      h = mix(h, hash_string(name));
      h = mix(h, static_cast<uint64_t>(facts->range.lo));
      h = mix(h, static_cast<uint64_t>(facts->range.hi));
      h = mix(h, static_cast<uint64_t>(facts->multiple_of));
    }
    for (const ExprRef &op : ops)
      h = mix(h, op.hash());
    return finalize(h);
  }
  static bool key_equal(const ExprNode *n, ExprKind kind, int64_t value,
                        std::span<const ExprRef> ops, std::string_view name,
                        const SymbolFacts *facts) {
    if (n->kind != kind || n->value != value || n->num_operands != ops.size())
      return false;
    if (facts != nullptr && (n->name != name || !(n->facts == *facts)))
      return false;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!(n->operands[i] == ops[i]))
        return false;
    }
    return true;
  }

  void grow_table() {
    std::vector<const ExprNode *> old(table.size() * 2, nullptr);
    old.swap(table);
    const size_t mask = table.size() - 1;
    for (const ExprNode *n : old) {
      if (n == nullptr)
        continue;
      size_t i = n->hash & mask;
      while (table[i] != nullptr)
        i = (i + 1) & mask;
      table[i] = n;
    }
  }

  ExprRef intern(ExprKind kind, int64_t value, std::span<const ExprRef> ops,
                 std::string_view name = {}, const SymbolFacts *facts = nullptr) {
    const uint64_t h = key_hash(kind, value, ops, name, facts);
    const size_t mask = table.size() - 1;
    size_t i = h & mask;
    while (const ExprNode *n = table[i]) {
      if (n->hash == h && key_equal(n, kind, value, ops, name, facts))
        return ExprRef::from_node(n);
      i = (i + 1) & mask;
    }
    ExprNode *node = new_node();
    node->kind = kind;
    node->id = next_id++;
    node->num_operands = static_cast<uint32_t>(ops.size());
    node->value = value;
    node->operands = copy_operands(ops);
    node->hash = h;
    node->context = self;
    if (facts != nullptr) {
      names.emplace_back(name);
      node->name = names.back();
      node->facts = *facts;
      node->lead = node;
      symbols.push_back(node);
    } else {
      for (const ExprRef &op : ops) {
        const ExprNode *l = op.node()->lead;
        if (l != nullptr && (node->lead == nullptr || compare_symbols(l, node->lead) < 0))
          node->lead = l;
      }
    }
    analyse(*node);
    table[i] = node;
    if (++table_count * 2 > table.size())
      grow_table();
    return ExprRef::from_node(node);
  }

  // Range and divisibility facts of a new node, from its operands'.
  static void analyse(ExprNode &n) {
    std::span<const ExprRef> ops{n.operands, n.num_operands};
    switch (n.kind) {
    case ExprKind::Constant:
      n.range = iv_of_constant(n.value);
      n.multiple = n.value == 0 ? 0 : abs_or_big(n.value);
      return;
    case ExprKind::Symbol:
      n.range = n.facts.range;
      n.multiple = n.facts.multiple_of;
      return;
    case ExprKind::Add: {
      Interval r = Interval::point(0);
      int64_t m = 0;
      for (const ExprRef &op : ops) {
        r = iv_add(r, op.range());
        m = std::gcd(m, op.multiple_of());
      }
      n.range = r;
      n.multiple = m;
      return;
    }
    case ExprKind::Mul: {
      Interval r = iv_of_constant(n.value);
      int64_t m = n.value == 0 ? 0 : abs_or_big(n.value);
      for (const ExprRef &op : ops) {
        r = iv_mul(r, op.range());
        int64_t p;
        if (op.multiple_of() == 0 || m == 0)
          m = 0;
        else if (!__builtin_mul_overflow(m, op.multiple_of(), &p))
          m = p;
      }
      n.range = r;
      n.multiple = m;
      return;
    }
    case ExprKind::FloorDiv: {
      const ExprRef a = ops[0], d = ops[1];
      n.range = d.range().positive_values() ? iv_div_pos(a.range(), d.range()) : Interval::all();
      n.multiple = 1;
      if (d.is_constant() && d.constant() > 0 && a.multiple_of() % d.constant() == 0)
        n.multiple = a.multiple_of() / d.constant();
      return;
    }
    case ExprKind::Mod: {
      const ExprRef a = ops[0], d = ops[1];
      n.range = d.range().positive_values() ? iv_mod_pos(a.range(), d.range()) : Interval::all();
      n.multiple = std::gcd(a.multiple_of(), d.multiple_of());
      if (n.multiple == 0)
        n.multiple = 1; // d == 0: undefined anyway
      return;
    }
    case ExprKind::Xor:
    case ExprKind::Or:
    case ExprKind::And: {
      bool all_non_negative = true, some_non_negative = false;
      int64_t lo = 0, min_hi = kPosInf, ones = 0;
      int tz_min = 62, tz_max = 0;
      for (const ExprRef &op : ops) {
        const Interval r = op.range();
        const int tz = trailing_zeros_of_multiple(op.multiple_of());
        tz_min = std::min(tz_min, tz);
        tz_max = std::max(tz_max, tz);
        if (r.lo < 0) {
          all_non_negative = false;
          continue;
        }
        some_non_negative = true;
        lo = std::max(lo, r.lo);
        min_hi = std::min(min_hi, r.hi);
        ones = std::max(ones, all_ones_covering(r.hi));
      }
      if (n.kind == ExprKind::And) {
        // x & y is in [0, y] for y >= 0, whatever x is.
        n.range = some_non_negative ? Interval{0, min_hi} : Interval::all();
        n.multiple = int64_t{1} << tz_max;
      } else {
        n.range =
            all_non_negative ? Interval{n.kind == ExprKind::Or ? lo : 0, ones} : Interval::all();
        n.multiple = int64_t{1} << tz_min;
      }
      return;
    }
    case ExprKind::Shl: {
      const Interval a = ops[0].range(), s = ops[1].range();
      n.range = Interval::all();
      if (a.lo >= 0 && s.lo >= 0 && s.hi <= 62)
        n.range = iv_mul(a, Interval{int64_t{1} << s.lo, int64_t{1} << s.hi});
      n.multiple = ops[0].multiple_of() == 0 ? 0 : ops[0].multiple_of();
      return;
    }
    case ExprKind::Shr: {
      const Interval a = ops[0].range(), s = ops[1].range();
      n.range = Interval::all();
      if (s.lo >= 0 && s.hi <= 62)
        n.range = iv_div_pos(a, Interval{int64_t{1} << s.lo, int64_t{1} << s.hi});
      n.multiple = 1;
      return;
    }
    case ExprKind::Min:
    case ExprKind::Max: {
      Interval r = ops[0].range();
      int64_t m = 0;
      for (const ExprRef &op : ops) {
        const Interval o = op.range();
        if (n.kind == ExprKind::Min)
          r = {std::min(r.lo, o.lo), std::min(r.hi, o.hi)};
        else
          r = {std::max(r.lo, o.lo), std::max(r.hi, o.hi)};
        m = std::gcd(m, op.multiple_of());
      }
      n.range = r;
      n.multiple = m == 0 ? 0 : m;
      return;
    }
    }
  }

  // ----- leaves
  ExprRef constant(int64_t v) { return intern(ExprKind::Constant, v, {}); }
  ExprRef raw(ExprKind kind, ExprRef a, ExprRef b) {
    const ExprRef ops[2] = {a, b};
    return intern(kind, kind == ExprKind::Mul ? 1 : 0, ops);
  }

  // ----- sums
  void append(Sum &s, ExprRef e, int64_t scale) {
    switch (e.kind()) {
    case ExprKind::Constant:
      s.constant = wrap_add(s.constant, wrap_mul(scale, e.constant()));
      return;
    case ExprKind::Add:
      for (const ExprRef &op : e.operands())
        append(s, op, scale);
      return;
    case ExprKind::Mul:
      if (e.coefficient() != 1) {
        s.terms.push_back({mul_base(e), wrap_mul(scale, e.coefficient())});
        return;
      }
      break;
    default:
      break;
    }
    s.terms.push_back({e, scale});
  }
  // The coefficient-free part of a Mul.
  ExprRef mul_base(ExprRef e) {
    if (e.operands().size() == 1)
      return e.operand(0);
    return intern(ExprKind::Mul, 1, e.operands());
  }
  ExprRef term_expr(ExprRef base, int64_t coeff) {
    if (coeff == 0)
      return constant(0);
    if (coeff == 1)
      return base;
    if (base.kind() == ExprKind::Mul)
      return intern(ExprKind::Mul, coeff, base.operands());
    return intern(ExprKind::Mul, coeff, {&base, 1});
  }
  static void normalize(Sum &s) {
    if (s.terms.size() > 1)
      std::sort(s.terms.begin(), s.terms.end(), less_term);
    size_t out = 0;
    for (size_t i = 0; i < s.terms.size();) {
      Term t = s.terms[i++];
      while (i < s.terms.size() && s.terms[i].base == t.base)
        t.coeff = wrap_add(t.coeff, s.terms[i++].coeff);
      if (t.coeff != 0)
        s.terms[out++] = t;
    }
    s.terms.resize(out);
  }
  // Precondition: normalized.
  ExprRef materialize(const Sum &s) {
    if (s.terms.empty())
      return constant(s.constant);
    if (s.terms.size() == 1 && s.constant == 0)
      return term_expr(s.terms[0].base, s.terms[0].coeff);
    std::vector<ExprRef> ops;
    ops.reserve(s.terms.size() + 1);
    for (const Term &t : s.terms)
      ops.push_back(term_expr(t.base, t.coeff));
    if (s.constant != 0)
      ops.push_back(constant(s.constant));
    return intern(ExprKind::Add, 0, ops);
  }
  ExprRef build_sum(Sum s) {
    normalize(s);
    // Each rewrite removes a div/mod pair or a term; the bound is a guard.
    for (int i = 0; i < 64 && recombine(s); ++i)
      normalize(s);
    return materialize(s);
  }
  static int find_term(const Sum &s, ExprRef base) {
    auto it = std::lower_bound(s.terms.begin(), s.terms.end(), Term{base, 0}, less_term);
    if (it == s.terms.end() || !(it->base == base))
      return -1;
    return static_cast<int>(it - s.terms.begin());
  }
  // Whether every term of `part` occurs in `s` with the same coefficient (and
  // not at index `skip`); `part` must have at least one term.
  static bool contains_terms(const Sum &s, const Sum &part, int skip) {
    if (part.terms.empty())
      return false;
    for (const Term &t : part.terms) {
      const int j = find_term(s, t.base);
      if (j < 0 || j == skip || s.terms[j].coeff != t.coeff)
        return false;
    }
    return true;
  }
  static void remove_terms(Sum &s, const Sum &part, int also) {
    std::vector<bool> drop(s.terms.size(), false);
    drop[also] = true;
    for (const Term &t : part.terms)
      drop[find_term(s, t.base)] = true;
    size_t out = 0;
    for (size_t i = 0; i < s.terms.size(); ++i) {
      if (!drop[i])
        s.terms[out++] = s.terms[i];
    }
    s.terms.resize(out);
    s.constant = wrap_add(s.constant, wrap_mul(-1, part.constant));
  }
  // The product of `factors` without the one at `skip`, times `coeff`.
  ExprRef product_without(std::span<const ExprRef> factors, size_t skip, int64_t coeff) {
    ExprRef r = constant(coeff);
    for (size_t k = 0; k < factors.size(); ++k) {
      if (k != skip)
        r = mul(r, factors[k]);
    }
    return r;
  }
  static bool nonzero(ExprRef e) { return e.range().lo > 0 || e.range().hi < 0; }

  // c·F·(x mod m) + c·F·m·(x / m) → c·F·x   (x = m·(x/m) + x mod m, any m != 0)
  // c·F·x - c·F·m·(x / m)        → c·F·(x mod m)
  bool recombine(Sum &s) {
    if (s.terms.size() < 2)
      return false;
    bool has_div = false, has_mod = false;
    for (const Term &t : s.terms) {
      for (const ExprRef &f : factors_of(t.base)) {
        has_div |= f.kind() == ExprKind::FloorDiv;
        has_mod |= f.kind() == ExprKind::Mod;
      }
    }
    if (!has_div)
      return false;
    if (has_mod) {
      for (size_t i = 0; i < s.terms.size(); ++i) {
        const Term ti = s.terms[i];
        std::span<const ExprRef> fs = factors_of(ti.base);
        for (size_t k = 0; k < fs.size(); ++k) {
          if (fs[k].kind() != ExprKind::Mod || !nonzero(fs[k].operand(1)))
            continue;
          const ExprRef x = fs[k].operand(0), m = fs[k].operand(1);
          const ExprRef scaled_rest = product_without(fs, k, ti.coeff);
          Sum partner;
          append(partner, mul(scaled_rest, mul(m, floor_div(x, m))), 1);
          if (!contains_terms(s, partner, static_cast<int>(i)))
            continue;
          remove_terms(s, partner, static_cast<int>(i));
          append(s, mul(scaled_rest, x), 1);
          return true;
        }
      }
    }
    for (size_t j = 0; j < s.terms.size(); ++j) {
      const Term tj = s.terms[j];
      std::span<const ExprRef> fs = factors_of(tj.base);
      for (size_t k = 0; k < fs.size(); ++k) {
        if (fs[k].kind() != ExprKind::FloorDiv)
          continue;
        const ExprRef x = fs[k].operand(0), m = fs[k].operand(1);
        ExprRef c_f;
        if (m.is_constant()) {
          const int64_t mv = m.constant();
          if (mv == 0 || mv == -1 || tj.coeff % mv != 0)
            continue;
          c_f = product_without(fs, k, -(tj.coeff / mv));
        } else {
          if (!m.range().positive_values())
            continue;
          // m must be one of the other factors: F·m·(x/m).
          size_t km = fs.size();
          for (size_t q = 0; q < fs.size(); ++q) {
            if (q != k && fs[q] == m) {
              km = q;
              break;
            }
          }
          if (km == fs.size())
            continue;
          ExprRef r = constant(wrap_mul(-1, tj.coeff));
          for (size_t q = 0; q < fs.size(); ++q) {
            if (q != k && q != km)
              r = mul(r, fs[q]);
          }
          c_f = r;
        }
        Sum partner;
        append(partner, mul(c_f, x), 1);
        if (!contains_terms(s, partner, static_cast<int>(j)))
          continue;
        remove_terms(s, partner, static_cast<int>(j));
        append(s, mul(c_f, mod(x, m)), 1);
        return true;
      }
    }
    return false;
  }

  ExprRef add(ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(ExprKind::Add, a, b);
    if (a.is_constant() && b.is_constant())
      return constant(wrap_add(a.constant(), b.constant()));
    if (b.is_constant() && b.constant() == 0)
      return a;
    if (a.is_constant() && a.constant() == 0)
      return b;
    Sum s;
    append(s, a, 1);
    append(s, b, 1);
    return build_sum(std::move(s));
  }

  // ----- products
  ExprRef scale(ExprRef e, int64_t c) {
    if (c == 0)
      return constant(0);
    if (c == 1)
      return e;
    switch (e.kind()) {
    case ExprKind::Constant:
      return constant(wrap_mul(e.constant(), c));
    case ExprKind::Add: {
      // Already canonical: scaling keeps the order and creates no new match.
      Sum s;
      append(s, e, c);
      Sum t;
      t.constant = s.constant;
      for (const Term &term : s.terms) {
        if (term.coeff != 0)
          t.terms.push_back(term);
      }
      return materialize(t);
    }
    case ExprKind::Mul: {
      const int64_t k = wrap_mul(e.coefficient(), c);
      if (k == 0)
        return constant(0);
      if (k == 1 && e.operands().size() == 1)
        return e.operand(0);
      return intern(ExprKind::Mul, k, e.operands());
    }
    default:
      return intern(ExprKind::Mul, c, {&e, 1});
    }
  }
  ExprRef mul(ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(ExprKind::Mul, a, b);
    if (a.is_constant())
      return scale(b, a.constant());
    if (b.is_constant())
      return scale(a, b.constant());
    int64_t coeff = 1;
    std::vector<ExprRef> factors;
    for (ExprRef e : {a, b}) {
      if (e.kind() == ExprKind::Mul) {
        coeff = wrap_mul(coeff, e.coefficient());
        factors.insert(factors.end(), e.operands().begin(), e.operands().end());
      } else {
        factors.push_back(e);
      }
    }
    std::sort(factors.begin(), factors.end(), ExprStructuralLess());
    if (coeff == 0)
      return constant(0);
    return intern(ExprKind::Mul, coeff, factors);
  }

  // ----- division and modulo
  // Whether coeff·base is d·(something expressible), d = dc·Π dfactors.
  struct Quotient {
    bool ok = false;
    int64_t coeff = 0;
    ExprRef base; // null: the quotient is the constant `coeff`
  };
  Quotient divide_term(const Term &t, ExprRef d) {
    int64_t dc = 1;
    std::span<const ExprRef> dfs;
    if (d.kind() == ExprKind::Mul) {
      dc = d.coefficient();
      dfs = d.operands();
    } else {
      dfs = {&d, 1};
    }
    if (dc == 0 || dc == -1 || t.coeff % dc != 0)
      return {};
    std::span<const ExprRef> fs = factors_of(t.base);
    std::vector<bool> used(fs.size(), false);
    for (const ExprRef &df : dfs) {
      bool found = false;
      for (size_t k = 0; k < fs.size(); ++k) {
        if (!used[k] && fs[k] == df) {
          used[k] = found = true;
          break;
        }
      }
      if (!found)
        return {};
    }
    ExprRef rest;
    for (size_t k = 0; k < fs.size(); ++k) {
      if (!used[k])
        rest = rest ? mul(rest, fs[k]) : fs[k];
    }
    return {true, t.coeff / dc, rest};
  }
  // Divisors f of d (f > 1) that split the sum a = f·A + R with R's range in
  // [0, f), largest first: gcd(d, coeff) for each term.
  static std::vector<int64_t> split_candidates(const Sum &s, int64_t d) {
    std::vector<int64_t> fs;
    for (const Term &t : s.terms) {
      const int64_t f =
          std::gcd(d, t.coeff == kNegInf ? int64_t{0} : (t.coeff < 0 ? -t.coeff : t.coeff));
      if (f > 1 && f < d)
        fs.push_back(f);
    }
    std::sort(fs.begin(), fs.end(), std::greater<>());
    fs.erase(std::unique(fs.begin(), fs.end()), fs.end());
    return fs;
  }
  // a = f·A + R; returns false when R's range is not inside [0, f).
  bool split_by(const Sum &s, int64_t f, Sum &big, Sum &small) {
    big = Sum{};
    small = Sum{};
    Interval r = Interval::point(fmod(s.constant, f));
    small.constant = fmod(s.constant, f);
    big.constant = fdiv(s.constant, f);
    for (const Term &t : s.terms) {
      if (t.coeff % f == 0) {
        big.terms.push_back({t.base, t.coeff / f});
      } else {
        small.terms.push_back(t);
        r = iv_add(r, iv_scale(t.base.range(), t.coeff));
      }
    }
    return r.lo >= 0 && r.hi < f;
  }

  ExprRef div_const(ExprRef a, int64_t d) {
    if (d == 1)
      return a;
    if (a.is_constant() && division_defined(a.constant(), d))
      return constant(fdiv(a.constant(), d));
    if (d <= 0)
      return raw(ExprKind::FloorDiv, a, constant(d));
    const Interval r = a.range();
    if (r.has_lower() && r.has_upper() && fdiv(r.lo, d) == fdiv(r.hi, d))
      return constant(fdiv(r.lo, d));
    if (a.kind() == ExprKind::FloorDiv) {
      // (x / e) / d = x / (e·d) for e, d > 0.
      const ExprRef e = a.operand(1);
      if (e.is_constant() && e.constant() > 0) {
        int64_t ed;
        if (!__builtin_mul_overflow(e.constant(), d, &ed))
          return div_const(a.operand(0), ed);
      } else if (e.range().positive_values()) {
        return floor_div(a.operand(0), mul(e, constant(d)));
      }
    }
    if (a.kind() == ExprKind::Mod && a.operand(1).is_constant()) {
      // (x mod m) / d = (x / d) mod (m/d) when d | m: digits as (x / d) mod k.
      const int64_t m = a.operand(1).constant();
      if (m > 0 && m % d == 0)
        return mod_const(div_const(a.operand(0), d), m / d);
    }
    if (is_bitwise(a.kind()) && is_pow2(d)) {
      // (x op y) >> k = (x >> k) op (y >> k) for op in ^ & |: exact when
      // every operand is a multiple of d, so nothing is lost.
      bool exact = true;
      for (const ExprRef &op : a.operands())
        exact &= op.multiple_of() % d == 0;
      if (exact) {
        ExprRef r = div_const(a.operand(0), d);
        for (size_t i = 1; i < a.operands().size(); ++i)
          r = assoc(a.kind(), r, div_const(a.operand(i), d));
        return r;
      }
    }
    Sum s;
    append(s, a, 1);
    // (d·Q + R) / d = Q + R / d.
    Sum quot, rest;
    quot.constant = fdiv(s.constant, d);
    rest.constant = fmod(s.constant, d);
    for (const Term &t : s.terms) {
      if (t.coeff % d == 0)
        quot.terms.push_back({t.base, t.coeff / d});
      else
        rest.terms.push_back(t);
    }
    if (!quot.terms.empty() || quot.constant != 0)
      return add(materialize(quot), div_const(materialize(rest), d));
    // (g·A) / (g·e) = A / e.
    int64_t g = std::gcd(d, s.constant);
    for (const Term &t : s.terms)
      g = std::gcd(g, t.coeff);
    if (g > 1) {
      Sum reduced;
      reduced.constant = s.constant / g;
      for (const Term &t : s.terms)
        reduced.terms.push_back({t.base, t.coeff / g});
      return div_const(materialize(reduced), d / g);
    }
    // (f·A + R) / d = A / (d/f) when f | d and 0 <= R < f.
    Sum big, small;
    for (int64_t f : split_candidates(s, d)) {
      if (d % f == 0 && split_by(s, f, big, small))
        return div_const(materialize(big), d / f);
    }
    return raw(ExprKind::FloorDiv, a, constant(d));
  }

  ExprRef floor_div(ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(ExprKind::FloorDiv, a, b);
    if (b.is_constant())
      return div_const(a, b.constant());
    if (!b.range().positive_values())
      return raw(ExprKind::FloorDiv, a, b);
    if (a.is_constant() && a.constant() == 0)
      return a;
    if (a == b)
      return constant(1);
    const Interval r = a.range();
    if (r.lo >= 0 && r.hi < b.range().lo)
      return constant(0);
    if (a.kind() == ExprKind::FloorDiv && a.operand(1).range().positive_values())
      return floor_div(a.operand(0), mul(a.operand(1), b));
    Sum s;
    append(s, a, 1);
    Sum quot, rest;
    rest.constant = s.constant;
    for (const Term &t : s.terms) {
      const Quotient q = divide_term(t, b);
      if (!q.ok) {
        rest.terms.push_back(t);
      } else if (q.base) {
        append(quot, scale(q.base, q.coeff), 1); // the rest of a product may be a sum
      } else {
        quot.constant = wrap_add(quot.constant, q.coeff);
      }
    }
    if (!quot.terms.empty() || quot.constant != 0) {
      normalize(quot);
      return add(materialize(quot), floor_div(materialize(rest), b));
    }
    return raw(ExprKind::FloorDiv, a, b);
  }

  ExprRef mod_const(ExprRef a, int64_t m) {
    if (m == 1 || m == -1)
      return constant(0);
    if (a.is_constant() && division_defined(a.constant(), m))
      return constant(fmod(a.constant(), m));
    if (m <= 0)
      return raw(ExprKind::Mod, a, constant(m));
    if (a.multiple_of() % m == 0)
      return constant(0);
    const Interval r = a.range();
    if (r.has_lower() && r.has_upper()) {
      const int64_t k = fdiv(r.lo, m);
      if (k == fdiv(r.hi, m))
        return k == 0 ? a : add(a, constant(wrap_mul(-k, m)));
    }
    if (a.kind() == ExprKind::Mod) {
      // (x mod e) mod m = x mod m when m | e.
      const ExprRef e = a.operand(1);
      if (e.is_constant() && e.constant() > 0 && e.constant() % m == 0)
        return mod_const(a.operand(0), m);
    }
    if (is_bitwise(a.kind()) && is_pow2(m)) {
      // (x op y) & (m-1) = (x & (m-1)) op (y & (m-1)) for op in ^ & |: worth it
      // when an operand vanishes (is a multiple of m).
      bool vanishes = false;
      for (const ExprRef &op : a.operands())
        vanishes |= op.multiple_of() % m == 0;
      if (vanishes) {
        ExprRef r = mod_const(a.operand(0), m);
        for (size_t i = 1; i < a.operands().size(); ++i)
          r = assoc(a.kind(), r, mod_const(a.operand(i), m));
        return r;
      }
    }
    Sum s;
    append(s, a, 1);
    // Coefficients and constant reduced modulo m: (k·x) mod m = ((k mod m)·x) mod m.
    bool changed = false;
    Sum reduced;
    reduced.constant = fmod(s.constant, m);
    changed |= reduced.constant != s.constant;
    for (const Term &t : s.terms) {
      const int64_t c = fmod(t.coeff, m);
      changed |= c != t.coeff;
      if (c != 0)
        reduced.terms.push_back({t.base, c});
    }
    if (changed)
      return mod_const(build_sum(std::move(reduced)), m); // may enable a recombination
    // (f·A + R) mod m = f·(A mod (m/f)) + R when f | m and 0 <= R < f.
    Sum big, small;
    for (int64_t f : split_candidates(s, m)) {
      if (m % f == 0 && split_by(s, f, big, small))
        return add(scale(mod_const(materialize(big), m / f), f), materialize(small));
    }
    // gcd of everything with m (R = 0 above when the constant is a multiple).
    int64_t g = std::gcd(m, s.constant);
    for (const Term &t : s.terms)
      g = std::gcd(g, t.coeff);
    if (g > 1 && g < m) {
      Sum q;
      q.constant = s.constant / g;
      for (const Term &t : s.terms)
        q.terms.push_back({t.base, t.coeff / g});
      return scale(mod_const(materialize(q), m / g), g);
    }
    return raw(ExprKind::Mod, a, constant(m));
  }

  ExprRef mod(ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(ExprKind::Mod, a, b);
    if (b.is_constant())
      return mod_const(a, b.constant());
    if (!b.range().positive_values())
      return raw(ExprKind::Mod, a, b);
    if ((a.is_constant() && a.constant() == 0) || a == b)
      return constant(0);
    const Interval r = a.range();
    if (r.lo >= 0 && r.hi < b.range().lo)
      return a;
    if (a.kind() == ExprKind::Mod && a.operand(1) == b)
      return a;
    Sum s;
    append(s, a, 1);
    Sum rest;
    rest.constant = s.constant;
    bool dropped = false;
    for (const Term &t : s.terms) {
      if (divide_term(t, b).ok)
        dropped = true;
      else
        rest.terms.push_back(t);
    }
    if (dropped)
      return mod(materialize(rest), b);
    return raw(ExprKind::Mod, a, b);
  }

  // ----- bitwise, min, max (associative and commutative)
  static bool bits_disjoint(std::span<const ExprRef> ops) {
    // Each non-negative operand occupies bits [tz, bit_length(hi)); sorted by
    // tz, each must end before the next starts.
    std::vector<std::pair<int, int>> spans;
    for (const ExprRef &op : ops) {
      const Interval r = op.range();
      if (r.lo < 0)
        return false;
      const int end = r.hi == kPosInf ? 64 : bit_length(r.hi); // an open end must come last
      spans.push_back({trailing_zeros_of_multiple(op.multiple_of()), end});
    }
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
      if (spans[i - 1].second > spans[i].first)
        return false;
    }
    return true;
  }

  ExprRef assoc(ExprKind kind, ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(kind, a, b);
    std::vector<ExprRef> ops;
    bool has_folded = false;
    int64_t folded = 0;
    auto fold = [&](int64_t v) {
      if (!has_folded) {
        has_folded = true;
        folded = v;
        return;
      }
      switch (kind) {
      case ExprKind::Xor:
        folded ^= v;
        break;
      case ExprKind::And:
        folded &= v;
        break;
      case ExprKind::Or:
        folded |= v;
        break;
      case ExprKind::Min:
        folded = std::min(folded, v);
        break;
      default:
        folded = std::max(folded, v);
        break;
      }
    };
    // A sum of bit-disjoint terms is their | and their ^: flatten it too, so
    // that the result does not depend on the order of construction.
    auto collect = [&](auto &self_ref, ExprRef e) -> void {
      const bool disjoint_sum = (kind == ExprKind::Xor || kind == ExprKind::Or) &&
                                e.kind() == ExprKind::Add && bits_disjoint(e.operands());
      if (e.kind() == kind || disjoint_sum) {
        for (const ExprRef &op : e.operands())
          self_ref(self_ref, op);
      } else if (e.is_constant()) {
        fold(e.constant());
      } else {
        ops.push_back(e);
      }
    };
    collect(collect, a);
    collect(collect, b);
    std::sort(ops.begin(), ops.end(), ExprStructuralLess());
    if (kind == ExprKind::Xor) {
      // x ^ x = 0.
      std::vector<ExprRef> kept;
      for (size_t i = 0; i < ops.size();) {
        if (i + 1 < ops.size() && ops[i] == ops[i + 1]) {
          i += 2;
        } else {
          kept.push_back(ops[i++]);
        }
      }
      ops.swap(kept);
    } else {
      ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    }
    // Identities and absorbing constants.
    if (has_folded) {
      const int64_t v = folded;
      if ((kind == ExprKind::Xor || kind == ExprKind::Or) && v == 0)
        has_folded = false;
      else if (kind == ExprKind::And && v == -1)
        has_folded = false;
      else if (kind == ExprKind::And && v == 0)
        return constant(0);
      else if (kind == ExprKind::Or && v == -1)
        return constant(-1);
    }
    if (kind == ExprKind::Min || kind == ExprKind::Max) {
      // Drop operands another operand dominates.
      std::vector<ExprRef> all = ops;
      if (has_folded)
        all.push_back(constant(folded));
      std::vector<ExprRef> kept;
      for (size_t i = 0; i < all.size(); ++i) {
        bool dominated = false;
        for (size_t j = 0; j < all.size() && !dominated; ++j) {
          if (i == j)
            continue;
          const Interval ri = all[i].range(), rj = all[j].range();
          // j dominates i; ties between equal points keep the earlier one.
          const bool strict = kind == ExprKind::Min ? rj.hi < ri.lo : rj.lo > ri.hi;
          const bool tie = kind == ExprKind::Min ? rj.hi <= ri.lo : rj.lo >= ri.hi;
          dominated = strict || (tie && j < i);
        }
        if (!dominated)
          kept.push_back(all[i]);
      }
      if (kept.size() == 1)
        return kept[0];
      ops.clear();
      has_folded = false;
      for (const ExprRef &k : kept) {
        if (k.is_constant()) {
          has_folded = true;
          folded = k.constant();
        } else {
          ops.push_back(k);
        }
      }
    }
    if (ops.empty())
      return constant(has_folded ? folded : (kind == ExprKind::And ? -1 : 0));
    if (kind == ExprKind::And && has_folded && ops.size() == 1) {
      const ExprRef x = ops[0];
      const int64_t mask = folded;
      const Interval r = x.range();
      // The mask keeps every bit x can have.
      if (r.lo >= 0 && r.hi != kPosInf) {
        const int64_t need = all_ones_covering(r.hi);
        if ((mask & need) == need)
          return x;
      }
      // A contiguous mask (2^B - 1) << L: 2^L · ((x / 2^L) mod 2^B).
      if (mask > 0) {
        const int low = std::countr_zero(static_cast<uint64_t>(mask));
        const int64_t shifted = mask >> low;
        if (shifted < kPosInf && ((shifted + 1) & shifted) == 0) {
          const int64_t p = int64_t{1} << low;
          return scale(mod_const(div_const(x, p), shifted + 1), p);
        }
      }
    }
    if (has_folded)
      ops.push_back(constant(folded));
    if (ops.size() == 1)
      return ops[0];
    // Disjoint bits: xor and or are addition.
    if ((kind == ExprKind::Xor || kind == ExprKind::Or) && bits_disjoint(ops)) {
      Sum s;
      for (const ExprRef &op : ops)
        append(s, op, 1);
      return build_sum(std::move(s));
    }
    return intern(kind, 0, ops);
  }

  ExprRef shift(ExprKind kind, ExprRef a, ExprRef b) {
    if (!simplify)
      return raw(kind, a, b);
    if (b.is_constant() && b.constant() >= 0 && b.constant() <= 62) {
      const int64_t p = int64_t{1} << b.constant();
      return kind == ExprKind::Shl ? scale(a, p) : div_const(a, p);
    }
    if (a.is_constant() && a.constant() == 0)
      return a;
    return raw(kind, a, b);
  }
};

// ---------------------------------------------------------------------------
ExprContext::ExprContext(ExprOptions options)
    : options_(options), impl_(std::make_unique<Impl>(this, options.simplify)) {}
ExprContext::~ExprContext() = default;

ExprRef ExprContext::constant(int64_t value) { return impl_->constant(value); }
ExprRef ExprContext::symbol(std::string_view name, SymbolFacts facts) {
  if (facts.multiple_of <= 0)
    facts.multiple_of = 1;
  return impl_->intern(ExprKind::Symbol, 0, {}, name, &facts);
}
ExprRef ExprContext::find_symbol(std::string_view name) const {
  for (auto it = impl_->symbols.rbegin(); it != impl_->symbols.rend(); ++it) {
    if ((*it)->name == name)
      return ExprRef::from_node(*it);
  }
  return {};
}
ExprRef ExprContext::add(ExprRef a, ExprRef b) { return impl_->add(a, b); }
ExprRef ExprContext::add(std::span<const ExprRef> terms) {
  if (terms.empty())
    return constant(0);
  if (!options_.simplify) {
    ExprRef r = terms[0];
    for (size_t i = 1; i < terms.size(); ++i)
      r = impl_->add(r, terms[i]);
    return r;
  }
  Sum s;
  for (const ExprRef &t : terms)
    impl_->append(s, t, 1);
  return impl_->build_sum(std::move(s));
}
ExprRef ExprContext::sub(ExprRef a, ExprRef b) { return add(a, neg(b)); }
ExprRef ExprContext::neg(ExprRef a) { return mul(constant(-1), a); }
ExprRef ExprContext::mul(ExprRef a, ExprRef b) { return impl_->mul(a, b); }
ExprRef ExprContext::mul(std::span<const ExprRef> factors) {
  if (factors.empty())
    return constant(1);
  ExprRef r = factors[0];
  for (size_t i = 1; i < factors.size(); ++i)
    r = impl_->mul(r, factors[i]);
  return r;
}
ExprRef ExprContext::floor_div(ExprRef a, ExprRef b) { return impl_->floor_div(a, b); }
ExprRef ExprContext::mod(ExprRef a, ExprRef b) { return impl_->mod(a, b); }
ExprRef ExprContext::bit_xor(ExprRef a, ExprRef b) { return impl_->assoc(ExprKind::Xor, a, b); }
ExprRef ExprContext::bit_and(ExprRef a, ExprRef b) { return impl_->assoc(ExprKind::And, a, b); }
ExprRef ExprContext::bit_or(ExprRef a, ExprRef b) { return impl_->assoc(ExprKind::Or, a, b); }
ExprRef ExprContext::shl(ExprRef a, ExprRef b) { return impl_->shift(ExprKind::Shl, a, b); }
ExprRef ExprContext::shr(ExprRef a, ExprRef b) { return impl_->shift(ExprKind::Shr, a, b); }
ExprRef ExprContext::min(ExprRef a, ExprRef b) { return impl_->assoc(ExprKind::Min, a, b); }
ExprRef ExprContext::max(ExprRef a, ExprRef b) { return impl_->assoc(ExprKind::Max, a, b); }
size_t ExprContext::node_count() const { return impl_->next_id; }

} // namespace argus::layout
