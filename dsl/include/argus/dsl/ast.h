// The Argus abstract syntax tree: the Python subset, with exact source ranges.
//
// Lowering (dsl/parse) builds it from the tree-sitter syntax tree and has
// already rejected constructs outside the subset; a construct that could not
// be lowered becomes an `Error` node so later stages skip it without
// reporting a second, derived error. Semantic facts (types, shapes, symbols)
// live in side tables of `sema::SemaResult`, keyed by node address, so the
// AST stays plain data.
#pragma once

#include "argus/dsl/source.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace argus::ast {

enum class ExprKind {
  Int,         // int_value
  Float,       // float_value
  Bool,        // int_value is 0 or 1
  String,      // name holds the (unescaped) value
  Name,        // name
  Attribute,   // operands[0] . name (name_range: the attribute)
  Call,        // operands[0] (callee), operands[1..] positional args, keywords
  Subscript,   // operands[0] [ operands[1..] ]  (a tuple index is flattened)
  Tuple,       // operands
  Dict,        // operands: key0, value0, key1, value1, ...
  Unary,       // unary_op operands[0]
  Binary,      // operands[0] binary_op operands[1]
  Compare,     // operands[0] compare_ops[0] operands[1] compare_ops[1] ...
  BoolOp,      // operands[0] bool_op operands[1]
  Conditional, // operands: {condition, then_value, else_value}
  Lambda,      // lambda_params: operands[0] (body)
  Error,       // could not be lowered; a diagnostic was already reported
};

enum class UnaryOp { Neg, Pos, Not, Invert };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Shl, Shr, BitAnd, BitOr, BitXor };
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };
enum class BoolOpKind { And, Or };

const char *to_string(UnaryOp op);
const char *to_string(BinaryOp op);
const char *to_string(CompareOp op);
const char *to_string(BoolOpKind op);
const char *to_string(ExprKind kind);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  Range name_range;
  ExprPtr value;
};

struct LambdaParam {
  std::string name;
  Range range;
};

struct Expr {
  ExprKind kind = ExprKind::Error;
  Range range;
  std::string name;
  Range name_range;
  int64_t int_value = 0;
  double float_value = 0.0;
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  BoolOpKind bool_op = BoolOpKind::And;
  std::vector<CompareOp> compare_ops;
  std::vector<ExprPtr> operands;
  std::vector<Keyword> keywords;
  std::vector<LambdaParam> lambda_params;

  // Accessors that name the operand roles.
  const Expr &callee() const { return *operands[0]; }
  size_t arg_count() const { return operands.size() - 1; }
  const Expr &arg(size_t i) const { return *operands[i + 1]; }
  const Keyword *keyword(std::string_view keyword_name) const;
  // For a Name: the identifier; for an Attribute chain of names: "nvvm.mma...".
  // Empty for anything else.
  std::string dotted_name() const;
};

enum class StmtKind {
  Expr,      // value
  Assign,    // targets = value  (a = b = v gives two targets)
  AugAssign, // target aug_op= value
  AnnAssign, // target: annotation [= value]
  If,        // if value: body else: orelse (elif is a nested If in orelse)
  For,       // for target in value: body
  While,     // while value: body
  Return,    // return [value]
  Break,     // break (innermost loop)
  Continue,  // continue (innermost loop)
  Pass,
  Error,
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Error;
  Range range;
  std::vector<ExprPtr> targets;
  ExprPtr target;
  ExprPtr annotation;
  ExprPtr value;
  BinaryOp aug_op = BinaryOp::Add;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
};

struct Decorator {
  std::string name; // "kernel", "device", "bench", or whatever was written
  Range range;      // the whole decorator without '@'
  Range name_range;
  ExprPtr expr; // a Name or a Call
};

struct Param {
  std::string name;
  Range range;
  Range name_range;
  ExprPtr annotation;    // may be null
  ExprPtr default_value; // may be null
};

struct Function {
  std::string name;
  Range range;
  Range name_range;
  std::vector<Decorator> decorators;
  std::vector<Param> params;
  ExprPtr return_annotation; // may be null
  std::vector<StmtPtr> body;

  const Decorator *decorator(std::string_view decorator_name) const;
};

// A module-level `NAME = expr` or `NAME: annotation = expr`.
struct Constant {
  std::string name;
  Range range;
  Range name_range;
  ExprPtr annotation; // may be null
  ExprPtr value;
};

struct Module {
  std::vector<Constant> constants;
  std::vector<Function> functions;
};

} // namespace argus::ast
