// Argus expressions → Z3 integer and boolean terms.
#include "z3_terms.h"

#include <unordered_set>

namespace argus::check::detail {

z3::context &thread_z3_context() {
  thread_local z3::context context;
  return context;
}

using ast::BinaryOp;
using ast::CompareOp;
using ast::Expr;
using ast::ExprKind;

bool mentions(const z3::expr &e, const std::vector<z3::expr> &consts) {
  // Terms are DAGs with much sharing: each node once.
  std::vector<z3::expr> todo{e};
  std::unordered_set<unsigned> seen;
  while (!todo.empty()) {
    const z3::expr x = todo.back();
    todo.pop_back();
    if (!x.is_app() || !seen.insert(x.id()).second)
      continue;
    if (x.is_const()) {
      for (const z3::expr &c : consts)
        if (z3::eq(x, c))
          return true;
      continue;
    }
    for (unsigned i = 0; i < x.num_args(); ++i)
      todo.push_back(x.arg(i));
  }
  return false;
}

z3::expr floor_div(const z3::expr &a, const z3::expr &b) {
  // Z3's div is Euclidean (the remainder is never negative); for b > 0 that is floor.
  return z3::ite(b > 0, a / b, -((-a) / b));
}

z3::expr floor_mod(const z3::expr &a, const z3::expr &b) { return a - b * floor_div(a, b); }

std::optional<z3::expr> Z3Terms::integer(const Expr &e) {
  if (auto c = sema_.constant_of(e))
    return ctx_.int_val(static_cast<int64_t>(*c));
  switch (e.kind) {
  case ExprKind::Int:
  case ExprKind::Bool:
    return ctx_.int_val(static_cast<int64_t>(e.int_value));
  case ExprKind::Name:
    return lookup_(e);
  case ExprKind::Unary: {
    if (e.unary_op == ast::UnaryOp::Not) {
      auto b = boolean(e);
      if (!b)
        return std::nullopt;
      return z3::ite(*b, ctx_.int_val(1), ctx_.int_val(0));
    }
    auto x = integer(*e.operands[0]);
    if (!x)
      return std::nullopt;
    if (e.unary_op == ast::UnaryOp::Neg)
      return -*x;
    if (e.unary_op == ast::UnaryOp::Pos)
      return *x;
    return std::nullopt;
  }
  case ExprKind::Binary: {
    auto a = integer(*e.operands[0]);
    auto b = integer(*e.operands[1]);
    if (!a || !b)
      return std::nullopt;
    switch (e.binary_op) {
    case BinaryOp::Add:
      return *a + *b;
    case BinaryOp::Sub:
      return *a - *b;
    case BinaryOp::Mul:
      return *a * *b;
    case BinaryOp::FloorDiv:
      return floor_div(*a, *b);
    case BinaryOp::Mod:
      return floor_mod(*a, *b);
    default:
      return std::nullopt; // bit operations: outside the integer fragment
    }
  }
  case ExprKind::Conditional: {
    auto c = boolean(*e.operands[0]);
    auto a = integer(*e.operands[1]);
    auto b = integer(*e.operands[2]);
    if (!c || !a || !b)
      return std::nullopt;
    return z3::ite(*c, *a, *b);
  }
  case ExprKind::Call: {
    const BuiltinId id = sema_.builtin_of(e);
    if ((id == BuiltinId::Cdiv || id == BuiltinId::Min || id == BuiltinId::Max) &&
        e.arg_count() == 2) {
      auto a = integer(e.arg(0));
      auto b = integer(e.arg(1));
      if (!a || !b)
        return std::nullopt;
      if (id == BuiltinId::Cdiv)
        return floor_div(*a + *b - 1, *b);
      return id == BuiltinId::Min ? z3::ite(*a < *b, *a, *b) : z3::ite(*a > *b, *a, *b);
    }
    if (call_)
      return call_(e);
    return std::nullopt;
  }
  case ExprKind::Subscript:
    if (subscript_)
      return subscript_(e);
    return std::nullopt;
  case ExprKind::Compare:
  case ExprKind::BoolOp: {
    auto b = boolean(e);
    if (!b)
      return std::nullopt;
    return z3::ite(*b, ctx_.int_val(1), ctx_.int_val(0));
  }
  default:
    return std::nullopt;
  }
}

std::optional<z3::expr> Z3Terms::boolean(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Compare: {
    std::optional<z3::expr> result;
    auto left = integer(*e.operands[0]);
    if (!left)
      return std::nullopt;
    for (size_t i = 0; i < e.compare_ops.size() && i + 1 < e.operands.size(); ++i) {
      auto right = integer(*e.operands[i + 1]);
      if (!right)
        return std::nullopt;
      z3::expr c = ctx_.bool_val(true);
      switch (e.compare_ops[i]) {
      case CompareOp::Lt:
        c = *left < *right;
        break;
      case CompareOp::Le:
        c = *left <= *right;
        break;
      case CompareOp::Gt:
        c = *left > *right;
        break;
      case CompareOp::Ge:
        c = *left >= *right;
        break;
      case CompareOp::Eq:
        c = *left == *right;
        break;
      case CompareOp::Ne:
        c = *left != *right;
        break;
      }
      result = result ? *result && c : c;
      left = right;
    }
    return result;
  }
  case ExprKind::BoolOp: {
    auto a = boolean(*e.operands[0]);
    auto b = boolean(*e.operands[1]);
    if (!a || !b)
      return std::nullopt;
    return e.bool_op == ast::BoolOpKind::And ? (*a && *b) : (*a || *b);
  }
  case ExprKind::Unary:
    if (e.unary_op == ast::UnaryOp::Not) {
      auto a = boolean(*e.operands[0]);
      if (!a)
        return std::nullopt;
      return !*a;
    }
    break;
  default:
    break;
  }
  auto x = integer(e);
  if (!x)
    return std::nullopt;
  return *x != 0;
}

} // namespace argus::check::detail
