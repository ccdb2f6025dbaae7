// Operators, evaluation, substitution and traversal of symbolic expressions.
#include "argus/layout/expr.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace argus::layout {

// ---------------------------------------------------------------------------
// Operators.
namespace {
ExprRef lit(ExprRef like, int64_t v) { return like.context().constant(v); }
} // namespace

ExprRef operator+(ExprRef a, ExprRef b) { return a.context().add(a, b); }
ExprRef operator+(ExprRef a, int64_t b) { return a.context().add(a, lit(a, b)); }
ExprRef operator+(int64_t a, ExprRef b) { return b.context().add(lit(b, a), b); }
ExprRef operator-(ExprRef a, ExprRef b) { return a.context().sub(a, b); }
ExprRef operator-(ExprRef a, int64_t b) { return a.context().sub(a, lit(a, b)); }
ExprRef operator-(int64_t a, ExprRef b) { return b.context().sub(lit(b, a), b); }
ExprRef operator-(ExprRef a) { return a.context().neg(a); }
ExprRef operator*(ExprRef a, ExprRef b) { return a.context().mul(a, b); }
ExprRef operator*(ExprRef a, int64_t b) { return a.context().mul(a, lit(a, b)); }
ExprRef operator*(int64_t a, ExprRef b) { return b.context().mul(lit(b, a), b); }
ExprRef operator/(ExprRef a, ExprRef b) { return a.context().floor_div(a, b); }
ExprRef operator/(ExprRef a, int64_t b) { return a.context().floor_div(a, lit(a, b)); }
ExprRef operator/(int64_t a, ExprRef b) { return b.context().floor_div(lit(b, a), b); }
ExprRef operator%(ExprRef a, ExprRef b) { return a.context().mod(a, b); }
ExprRef operator%(ExprRef a, int64_t b) { return a.context().mod(a, lit(a, b)); }
ExprRef operator%(int64_t a, ExprRef b) { return b.context().mod(lit(b, a), b); }
ExprRef operator^(ExprRef a, ExprRef b) { return a.context().bit_xor(a, b); }
ExprRef operator^(ExprRef a, int64_t b) { return a.context().bit_xor(a, lit(a, b)); }
ExprRef operator&(ExprRef a, ExprRef b) { return a.context().bit_and(a, b); }
ExprRef operator&(ExprRef a, int64_t b) { return a.context().bit_and(a, lit(a, b)); }
ExprRef operator|(ExprRef a, ExprRef b) { return a.context().bit_or(a, b); }
ExprRef operator|(ExprRef a, int64_t b) { return a.context().bit_or(a, lit(a, b)); }
ExprRef operator<<(ExprRef a, int64_t b) { return a.context().shl(a, lit(a, b)); }
ExprRef operator>>(ExprRef a, int64_t b) { return a.context().shr(a, lit(a, b)); }
ExprRef min(ExprRef a, ExprRef b) { return a.context().min(a, b); }
ExprRef max(ExprRef a, ExprRef b) { return a.context().max(a, b); }

// ---------------------------------------------------------------------------
// Bindings.
Bindings &Bindings::set(std::string_view name, int64_t value) {
  for (auto &[n, v] : values_) {
    if (n == name) {
      v = value;
      return *this;
    }
  }
  values_.emplace_back(std::string(name), value);
  return *this;
}

std::optional<int64_t> Bindings::get(std::string_view name) const {
  for (const auto &[n, v] : values_) {
    if (n == name)
      return v;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Evaluation.
namespace {

class Evaluator {
public:
  explicit Evaluator(const Bindings &bindings) : bindings_(bindings) {}

  Result<int64_t> eval(ExprRef e) {
    if (auto it = memo_.find(e.node()); it != memo_.end())
      return it->second;
    Result<int64_t> r = compute(e);
    if (r.ok())
      memo_.emplace(e.node(), *r);
    return r;
  }

private:
  static Error overflow(ExprRef e) {
    return Error{"int64 overflow evaluating " + std::string(to_string(e.kind()))};
  }

  Result<int64_t> symbol(ExprRef e) {
    const std::optional<int64_t> v = bindings_.get(e.symbol_name());
    if (!v)
      return Error{"symbol '" + std::string(e.symbol_name()) + "' has no value"};
    const SymbolFacts &f = e.symbol_facts();
    if (!f.range.contains(*v)) {
      return Error{"symbol '" + std::string(e.symbol_name()) + "' = " + std::to_string(*v) +
                   " is outside its range " + to_string(f.range)};
    }
    if (f.multiple_of > 1 && *v % f.multiple_of != 0) {
      return Error{"symbol '" + std::string(e.symbol_name()) + "' = " + std::to_string(*v) +
                   " is not a multiple of " + std::to_string(f.multiple_of)};
    }
    return *v;
  }

  Result<int64_t> compute(ExprRef e) {
    switch (e.kind()) {
    case ExprKind::Constant:
      return e.constant();
    case ExprKind::Symbol:
      return symbol(e);
    default:
      break;
    }
    std::vector<int64_t> v;
    v.reserve(e.operands().size());
    for (const ExprRef &op : e.operands()) {
      Result<int64_t> r = eval(op);
      if (!r.ok())
        return r;
      v.push_back(*r);
    }
    switch (e.kind()) {
    case ExprKind::Add: {
      int64_t acc = 0;
      for (int64_t x : v) {
        if (__builtin_add_overflow(acc, x, &acc))
          return overflow(e);
      }
      return acc;
    }
    case ExprKind::Mul: {
      int64_t acc = e.coefficient();
      for (int64_t x : v) {
        if (__builtin_mul_overflow(acc, x, &acc))
          return overflow(e);
      }
      return acc;
    }
    case ExprKind::FloorDiv:
    case ExprKind::Mod: {
      const int64_t a = v[0], b = v[1];
      if (b == 0)
        return Error{std::string(e.kind() == ExprKind::Mod ? "modulo" : "division") + " by zero"};
      if (a == kNegInf && b == -1)
        return overflow(e);
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) {
        --q;
        r += b;
      }
      return e.kind() == ExprKind::FloorDiv ? q : r;
    }
    case ExprKind::Xor:
    case ExprKind::And:
    case ExprKind::Or: {
      int64_t acc = v[0];
      for (size_t i = 1; i < v.size(); ++i) {
        if (e.kind() == ExprKind::Xor)
          acc ^= v[i];
        else if (e.kind() == ExprKind::And)
          acc &= v[i];
        else
          acc |= v[i];
      }
      return acc;
    }
    case ExprKind::Shl:
    case ExprKind::Shr: {
      const int64_t a = v[0], s = v[1];
      if (s < 0 || s > 62)
        return Error{"shift count " + std::to_string(s) + " outside [0, 62]"};
      if (e.kind() == ExprKind::Shr)
        return a >> s;
      int64_t r;
      if (__builtin_mul_overflow(a, int64_t{1} << s, &r))
        return overflow(e);
      return r;
    }
    case ExprKind::Min:
      return *std::min_element(v.begin(), v.end());
    case ExprKind::Max:
      return *std::max_element(v.begin(), v.end());
    default:
      return Error{"unknown expression kind"};
    }
  }

  const Bindings &bindings_;
  std::unordered_map<const ExprNode *, int64_t> memo_;
};

} // namespace

Result<int64_t> evaluate(ExprRef e, const Bindings &bindings) {
  if (e.is_null())
    return Error{"null expression"};
  return Evaluator(bindings).eval(e);
}

// ---------------------------------------------------------------------------
// Substitution.
namespace {

class Substituter {
public:
  explicit Substituter(const std::function<ExprRef(ExprRef)> &replace) : replace_(replace) {}

  ExprRef run(ExprRef e) {
    if (auto it = memo_.find(e.node()); it != memo_.end())
      return it->second;
    ExprRef r = rebuild(e);
    memo_.emplace(e.node(), r);
    return r;
  }

private:
  ExprRef rebuild(ExprRef e) {
    ExprContext &ctx = e.context();
    switch (e.kind()) {
    case ExprKind::Constant:
      return e;
    case ExprKind::Symbol: {
      ExprRef r = replace_(e);
      return r ? r : e;
    }
    default:
      break;
    }
    std::vector<ExprRef> ops;
    bool changed = false;
    for (const ExprRef &op : e.operands()) {
      ops.push_back(run(op));
      changed |= !(ops.back() == op);
    }
    if (!changed)
      return e;
    switch (e.kind()) {
    case ExprKind::Add:
      return ctx.add(ops);
    case ExprKind::Mul:
      if (e.coefficient() == 1)
        return ctx.mul(ops);
      return ctx.mul(ctx.constant(e.coefficient()), ctx.mul(ops));
    case ExprKind::FloorDiv:
      return ctx.floor_div(ops[0], ops[1]);
    case ExprKind::Mod:
      return ctx.mod(ops[0], ops[1]);
    case ExprKind::Shl:
      return ctx.shl(ops[0], ops[1]);
    case ExprKind::Shr:
      return ctx.shr(ops[0], ops[1]);
    default: {
      ExprRef r = ops[0];
      for (size_t i = 1; i < ops.size(); ++i) {
        switch (e.kind()) {
        case ExprKind::Xor:
          r = ctx.bit_xor(r, ops[i]);
          break;
        case ExprKind::And:
          r = ctx.bit_and(r, ops[i]);
          break;
        case ExprKind::Or:
          r = ctx.bit_or(r, ops[i]);
          break;
        case ExprKind::Min:
          r = ctx.min(r, ops[i]);
          break;
        default:
          r = ctx.max(r, ops[i]);
          break;
        }
      }
      return r;
    }
    }
  }

  const std::function<ExprRef(ExprRef)> &replace_;
  std::unordered_map<const ExprNode *, ExprRef> memo_;
};

void collect(ExprRef e, std::unordered_set<const ExprNode *> &seen, std::vector<ExprRef> *out) {
  if (!seen.insert(e.node()).second)
    return;
  if (out != nullptr && e.is_symbol())
    out->push_back(e);
  for (const ExprRef &op : e.operands())
    collect(op, seen, out);
}

} // namespace

ExprRef substitute(ExprRef e, const std::function<ExprRef(ExprRef symbol)> &replace) {
  if (e.is_null())
    return e;
  return Substituter(replace).run(e);
}

ExprRef substitute(ExprRef e, const Bindings &bindings) {
  return substitute(e, [&](ExprRef s) -> ExprRef {
    const std::optional<int64_t> v = bindings.get(s.symbol_name());
    return v ? s.context().constant(*v) : ExprRef();
  });
}

size_t dag_size(ExprRef e) {
  if (e.is_null())
    return 0;
  std::unordered_set<const ExprNode *> seen;
  collect(e, seen, nullptr);
  return seen.size();
}

bool depends_on(ExprRef e, ExprRef symbol) {
  if (e.is_null())
    return false;
  std::unordered_set<const ExprNode *> seen;
  collect(e, seen, nullptr);
  return seen.count(symbol.node()) != 0;
}

std::vector<ExprRef> symbols_of(ExprRef e) {
  std::vector<ExprRef> out;
  if (e.is_null())
    return out;
  std::unordered_set<const ExprNode *> seen;
  collect(e, seen, &out);
  std::sort(out.begin(), out.end(), ExprStructuralLess());
  return out;
}

} // namespace argus::layout
