// Printing and evaluating the expressions of grids, shapes, assumes and @bench counts.
#include "simple_expr.h"

#include "argus/dsl/int_eval.h"

#include <cmath>
#include <cstdio>

namespace argus::codegen::detail {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;

// cdiv, min, max or abs; None for any other call. Sema's resolution when it
// analyzed the expression; the grid and @bench expressions it folds without
// recording a call are resolved the way sema resolves a builtin name.
BuiltinId integer_builtin(const Expr &call, const SimpleContext &context) {
  BuiltinId id = context.sema ? context.sema->builtin_of(call) : BuiltinId::None;
  if (id == BuiltinId::None && call.callee().kind == ExprKind::Name)
    id = builtin_by_name("", call.callee().name).value_or(BuiltinId::None);
  using enum BuiltinId;
  return id == Cdiv || id == Min || id == Max || id == Abs ? id : None;
}

std::string int_literal(int64_t v, SimpleStyle style) {
  if (style == SimpleStyle::Python)
    return std::to_string(v);
  if (v == INT64_MIN)
    return "INT64_MIN";
  return "INT64_C(" + std::to_string(v) + ")";
}

// Round-trips the double: 17 significant digits.
std::string float_literal(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  std::string text = buffer;
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text;
}

struct Printer {
  const SimpleContext &context;
  SimpleStyle style;
  std::string why;

  std::optional<std::string> fail(const std::string &message) {
    if (why.empty())
      why = message;
    return std::nullopt;
  }

  std::optional<std::string> print(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Int:
      return int_literal(e.int_value, style);
    case ExprKind::Bool:
      if (style == SimpleStyle::Python)
        return std::string(e.int_value ? "True" : "False");
      return std::string(e.int_value ? "1" : "0");
    case ExprKind::Float:
      return float_literal(e.float_value);
    case ExprKind::Name: {
      if (auto it = context.constants.find(e.name); it != context.constants.end())
        return int_literal(it->second, style);
      if (context.sema)
        if (const auto f = context.sema->float_constant_of(e)) // a float module constant
          return float_literal(*f);
      if (style == SimpleStyle::HostCpp) {
        if (auto it = context.renames.find(e.name); it != context.renames.end())
          return it->second;
      }
      return e.name;
    }
    case ExprKind::Unary: {
      auto operand = print(*e.operands[0]);
      if (!operand)
        return operand;
      switch (e.unary_op) {
      case ast::UnaryOp::Neg:
        return "(-" + *operand + ")";
      case ast::UnaryOp::Pos:
        return *operand;
      case ast::UnaryOp::Not:
        return style == SimpleStyle::Python ? "(not " + *operand + ")" : "(!" + *operand + ")";
      case ast::UnaryOp::Invert:
        return "(~" + *operand + ")";
      }
      return operand;
    }
    case ExprKind::Binary: {
      if (e.binary_op == BinaryOp::Pow) {
        if (context.sema) {
          if (auto v = context.sema->constant_of(e))
            return int_literal(*v, style);
        }
        return fail("a runtime power");
      }
      auto a = print(*e.operands[0]);
      auto b = print(*e.operands[1]);
      if (!a || !b)
        return std::nullopt;
      if (style == SimpleStyle::HostCpp) {
        if (e.binary_op == BinaryOp::FloorDiv)
          return "argus_host_floordiv(" + *a + ", " + *b + ")";
        if (e.binary_op == BinaryOp::Mod)
          return "argus_host_floormod(" + *a + ", " + *b + ")";
      }
      const char *op = ast::to_string(e.binary_op);
      if (e.binary_op == BinaryOp::Div && style == SimpleStyle::HostCpp)
        return "((double)" + *a + " / (double)" + *b + ")";
      return "(" + *a + " " + op + " " + *b + ")";
    }
    case ExprKind::Compare: {
      std::string out;
      std::optional<std::string> left = print(*e.operands[0]);
      if (!left)
        return left;
      for (size_t i = 0; i < e.compare_ops.size(); ++i) {
        auto right = print(*e.operands[i + 1]);
        if (!right)
          return right;
        const std::string part =
            "(" + *left + " " + ast::to_string(e.compare_ops[i]) + " " + *right + ")";
        out = out.empty() ? part : out + (style == SimpleStyle::Python ? " and " : " && ") + part;
        left = right;
      }
      return "(" + out + ")";
    }
    case ExprKind::BoolOp: {
      auto a = print(*e.operands[0]);
      auto b = print(*e.operands[1]);
      if (!a || !b)
        return std::nullopt;
      const bool is_and = e.bool_op == ast::BoolOpKind::And;
      if (style == SimpleStyle::Python)
        return "(" + *a + (is_and ? " and " : " or ") + *b + ")";
      return "(" + *a + (is_and ? " && " : " || ") + *b + ")";
    }
    case ExprKind::Conditional: {
      auto c = print(*e.operands[0]);
      auto a = print(*e.operands[1]);
      auto b = print(*e.operands[2]);
      if (!c || !a || !b)
        return std::nullopt;
      if (style == SimpleStyle::Python)
        return "(" + *a + " if " + *c + " else " + *b + ")";
      return "(" + *c + " ? " + *a + " : " + *b + ")";
    }
    case ExprKind::Call: {
      const BuiltinId id = integer_builtin(e, context);
      if (id == BuiltinId::None)
        return fail("a call of '" + e.callee().dotted_name() + "'");
      const std::string name = builtin_name(id);
      std::vector<std::string> args;
      for (size_t i = 0; i < e.arg_count(); ++i) {
        auto a = print(e.arg(i));
        if (!a)
          return a;
        args.push_back(*a);
      }
      if (id == BuiltinId::Abs && args.size() != 1)
        return fail("abs takes one argument");
      if (id != BuiltinId::Abs && args.size() < 2)
        return fail(name + " takes two arguments");
      if (style == SimpleStyle::Python) {
        std::string out = name + "(";
        for (size_t i = 0; i < args.size(); ++i)
          out += (i ? ", " : "") + args[i];
        return out + ")";
      }
      const std::string fn = "argus_host_" + name;
      std::string acc = args[0];
      if (id == BuiltinId::Abs)
        return fn + "(" + acc + ")";
      for (size_t i = 1; i < args.size(); ++i)
        acc = fn + "(" + acc + ", " + args[i] + ")";
      return acc;
    }
    default:
      return fail(std::string("a ") + ast::to_string(e.kind));
    }
  }
};

} // namespace

std::optional<std::string> print_simple(const Expr &e, const SimpleContext &context,
                                        SimpleStyle style, std::string *why) {
  Printer printer{context, style, {}};
  auto out = printer.print(e);
  if (!out && why)
    *why = printer.why;
  return out;
}

std::optional<int64_t> evaluate_simple(const Expr &e, const SimpleContext &context,
                                       const std::map<std::string, int64_t> &values) {
  auto eval = [&](const Expr &x) { return evaluate_simple(x, context, values); };
  switch (e.kind) {
  case ExprKind::Int:
  case ExprKind::Bool:
    return e.int_value;
  case ExprKind::Name: {
    if (auto it = values.find(e.name); it != values.end())
      return it->second;
    if (auto it = context.constants.find(e.name); it != context.constants.end())
      return it->second;
    return std::nullopt;
  }
  case ExprKind::Unary: {
    auto v = eval(*e.operands[0]);
    if (!v)
      return v;
    return int_eval::unary(e.unary_op, *v).get();
  }
  case ExprKind::Binary: {
    auto a = eval(*e.operands[0]);
    auto b = eval(*e.operands[1]);
    if (!a || !b)
      return std::nullopt;
    return int_eval::binary(e.binary_op, *a, *b).get();
  }
  case ExprKind::Call: {
    const BuiltinId id = integer_builtin(e, context);
    std::vector<int64_t> args;
    for (size_t i = 0; i < e.arg_count(); ++i) {
      auto v = eval(e.arg(i));
      if (!v)
        return v;
      args.push_back(*v);
    }
    if (id == BuiltinId::Abs && args.size() == 1)
      return int_eval::absolute(args[0]).get();
    if (args.size() < 2)
      return std::nullopt;
    if (id == BuiltinId::Cdiv)
      return int_eval::cdiv(args[0], args[1]).get();
    int64_t acc = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      if (id == BuiltinId::Min)
        acc = std::min(acc, args[i]);
      else if (id == BuiltinId::Max)
        acc = std::max(acc, args[i]);
      else
        return std::nullopt;
    }
    return acc;
  }
  default:
    return std::nullopt;
  }
}

} // namespace argus::codegen::detail
