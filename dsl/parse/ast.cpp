#include "argus/dsl/ast.h"

namespace argus::ast {

const char *to_string(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Not:
    return "not";
  case UnaryOp::Invert:
    return "~";
  }
  return "?";
}

const char *to_string(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  }
  return "?";
}

const char *to_string(CompareOp op) {
  switch (op) {
  case CompareOp::Lt:
    return "<";
  case CompareOp::Le:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::Ge:
    return ">=";
  case CompareOp::Eq:
    return "==";
  case CompareOp::Ne:
    return "!=";
  }
  return "?";
}

const char *to_string(BoolOpKind op) { return op == BoolOpKind::And ? "and" : "or"; }

const char *to_string(ExprKind kind) {
  switch (kind) {
  case ExprKind::Int:
    return "integer";
  case ExprKind::Float:
    return "float";
  case ExprKind::Bool:
    return "boolean";
  case ExprKind::String:
    return "string";
  case ExprKind::Name:
    return "name";
  case ExprKind::Attribute:
    return "attribute";
  case ExprKind::Call:
    return "call";
  case ExprKind::Subscript:
    return "subscript";
  case ExprKind::Tuple:
    return "tuple";
  case ExprKind::Dict:
    return "dict";
  case ExprKind::Unary:
    return "unary operation";
  case ExprKind::Binary:
    return "binary operation";
  case ExprKind::Compare:
    return "comparison";
  case ExprKind::BoolOp:
    return "boolean operation";
  case ExprKind::Conditional:
    return "conditional expression";
  case ExprKind::Lambda:
    return "lambda";
  case ExprKind::Error:
    return "error";
  }
  return "?";
}

const Keyword *Expr::keyword(std::string_view keyword_name) const {
  for (const Keyword &k : keywords) {
    if (k.name == keyword_name)
      return &k;
  }
  return nullptr;
}

std::string Expr::dotted_name() const {
  if (kind == ExprKind::Name)
    return name;
  if (kind == ExprKind::Attribute && !operands.empty()) {
    std::string prefix = operands[0]->dotted_name();
    return prefix.empty() ? std::string() : prefix + "." + name;
  }
  return {};
}

const Decorator *Function::decorator(std::string_view decorator_name) const {
  for (const Decorator &d : decorators) {
    if (d.name == decorator_name)
      return &d;
  }
  return nullptr;
}

} // namespace argus::ast
