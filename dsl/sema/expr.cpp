// Expressions: names, operators, subscripts; constant folding as we go.
#include "analyzer.h"
#include "argus/dsl/int_eval.h"
#include "builtins.h"

#include <cmath>
#include <limits>

namespace argus::sema {
namespace {

using ast::BinaryOp;
using ast::Expr;
using ast::ExprKind;

bool compare_doubles(ast::CompareOp op, double a, double b) {
  switch (op) {
  case ast::CompareOp::Lt:
    return a < b;
  case ast::CompareOp::Le:
    return a <= b;
  case ast::CompareOp::Gt:
    return a > b;
  case ast::CompareOp::Ge:
    return a >= b;
  case ast::CompareOp::Eq:
    return a == b;
  case ast::CompareOp::Ne:
    return a != b;
  }
  return false;
}

// The conversion to suggest when two float types meet: to the wider one.
std::string wider_float(const Type &a, const Type &b) {
  if (!is_float(a.scalar))
    return b.str();
  if (!is_float(b.scalar))
    return a.str();
  return bit_width(a.scalar) >= bit_width(b.scalar) ? a.str() : b.str();
}

bool is_integer_only(BinaryOp op) {
  switch (op) {
  case BinaryOp::Shl:
  case BinaryOp::Shr:
  case BinaryOp::BitAnd:
  case BinaryOp::BitOr:
  case BinaryOp::BitXor:
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    return true;
  default:
    return false;
  }
}

} // namespace

const Type &Analyzer::type(const Expr &expr) const {
  static const Type unknown;
  const Type *t = result_.type_of(expr);
  return t ? *t : unknown;
}

Type Analyzer::record(const Expr &expr, Type type, std::optional<int64_t> value) {
  if (value)
    result_.constant_values[&expr] = *value;
  result_.expr_types[&expr] = type;
  return type;
}

Type Analyzer::record_float(const Expr &expr, double value) {
  result_.float_values[&expr] = value;
  return record(expr, Type::of(TypeKind::FloatLiteral));
}

std::optional<double> Analyzer::numeric_constant(const Expr &expr) const {
  if (const auto f = float_constant(expr))
    return f;
  if (const auto i = constant(expr))
    return static_cast<double>(*i);
  return std::nullopt;
}

Type Analyzer::fold_float_binary(const Expr &expr, const Type &common) {
  const auto a = numeric_constant(*expr.operands[0]);
  const auto b = numeric_constant(*expr.operands[1]);
  if (!a || !b || common.kind != TypeKind::FloatLiteral)
    return record(expr, common);
  double value = 0;
  switch (expr.binary_op) {
  case BinaryOp::Add:
    value = *a + *b;
    break;
  case BinaryOp::Sub:
    value = *a - *b;
    break;
  case BinaryOp::Mul:
    value = *a * *b;
    break;
  case BinaryOp::Div:
    if (*b == 0) {
      error(codes::kConstantDivByZero, expr.range, "division by zero in a constant expression");
      return record(expr, Type::unknown());
    }
    value = *a / *b;
    break;
  case BinaryOp::Pow:
    if (*a == 0 && *b < 0) {
      error(codes::kConstantDivByZero, expr.range,
            "0 to a negative power in a constant expression");
      return record(expr, Type::unknown());
    }
    value = std::pow(*a, *b);
    break;
  default: // integer-only operators were reported by the caller
    return record(expr, common);
  }
  // Python raises on these too (OverflowError, complex results); `inf` itself
  // and arithmetic on it stay allowed.
  if (std::isnan(value) || (std::isinf(value) && !std::isinf(*a) && !std::isinf(*b))) {
    error(codes::kNotConstant, expr.range, "this float constant expression has no finite value");
    return record(expr, Type::unknown());
  }
  return record_float(expr, value);
}

const Symbol *Analyzer::lookup(const std::string &name) const {
  if (scope_) {
    if (auto it = scope_->names.find(name); it != scope_->names.end())
      return it->second;
  }
  if (auto it = globals_.find(name); it != globals_.end())
    return it->second;
  return nullptr;
}

Type Analyzer::check_expr(const Expr &expr) {
  switch (expr.kind) {
  case ExprKind::Int:
    return record(expr, Type::of(TypeKind::IntLiteral), expr.int_value);
  case ExprKind::Float:
    return record_float(expr, expr.float_value);
  case ExprKind::Bool:
    return record(expr, Type::scalar_of(ScalarKind::Bool), expr.int_value);
  case ExprKind::String:
    return record(expr, Type::of(TypeKind::String));
  case ExprKind::Name:
    return check_name(expr);
  case ExprKind::Attribute: {
    const std::string dotted = expr.dotted_name();
    error(
        codes::kUnknownAttribute, expr.range,
        "'" + (dotted.empty() ? expr.name : dotted) +
            "' is not a value; attributes are only used as calls (nvvm.*, amdgpu.*, t.tile(...))");
    return record(expr, Type::unknown());
  }
  case ExprKind::Call:
    return record(expr, check_call(expr), result_.constant_of(expr));
  case ExprKind::Subscript:
    return check_subscript(expr);
  case ExprKind::Tuple: {
    std::vector<Type> elements;
    bool known = true;
    for (const auto &element : expr.operands) {
      elements.push_back(check_expr(*element));
      known = known && !elements.back().is_unknown();
    }
    // A tuple with a broken element is itself unknown, so nothing derived is reported.
    return record(expr, known ? Type::tuple_of(std::move(elements)) : Type::unknown());
  }
  case ExprKind::Dict:
    for (const auto &operand : expr.operands)
      check_expr(*operand);
    error(codes::kInvalidOperand, expr.range,
          "a dict is only allowed as the tag record of assert_tag(x, {...})");
    return record(expr, Type::unknown());
  case ExprKind::Unary:
    return check_unary(expr);
  case ExprKind::Binary:
    return check_binary(expr);
  case ExprKind::Compare:
    return check_compare(expr);
  case ExprKind::BoolOp:
    return check_bool_op(expr);
  case ExprKind::Conditional:
    return check_conditional(expr);
  case ExprKind::Lambda:
    // A generator lowers to a Lambda with two operands (lower_generator).
    error(codes::kInvalidOperand, expr.range,
          expr.operands.size() == 2
              ? "a generator expression is only allowed as a fact of assume(...), as in "
                "assume(0 <= idx[i] < N for i in range(T))"
              : "a lambda is only allowed as the tag function of tag(T, lambda ...: {...})");
    return record(expr, Type::unknown());
  case ExprKind::Error:
    return record(expr, Type::unknown());
  }
  return record(expr, Type::unknown());
}

Type Analyzer::check_name(const Expr &expr) {
  const std::string &name = expr.name;
  for (const std::string &param : lambda_params_) {
    if (param == name)
      return record(expr, Type::scalar_of(ScalarKind::I32));
  }
  if (bench_sizes_) {
    if (auto it = bench_sizes_->find(name); it != bench_sizes_->end())
      return record(expr, Type::of(TypeKind::IntLiteral), it->second);
  }
  if (const Symbol *symbol = lookup(name)) {
    result_.references[&expr] = symbol;
    if (scope_)
      scope_->read.insert(symbol);
    if (symbol->float_value)
      result_.float_values[&expr] = *symbol->float_value;
    return record(expr, symbol->type, symbol->value);
  }
  if (scope_ && scope_->assignment_counts.count(name)) {
    error(codes::kUndefinedName, expr.range, "'" + name + "' is used before it is assigned");
    return record(expr, Type::unknown());
  }
  if (auto dtype = scalar_from_name(name))
    return record(expr, Type::dtype_of(*dtype));
  if (name == "nvvm" || name == "amdgpu")
    return record(expr, Type::of(TypeKind::Namespace));
  if (name == "inf")
    return record_float(expr, std::numeric_limits<double>::infinity());
  if (find_builtin(name)) {
    error(codes::kNotCallable, expr.range,
          "builtin '" + name + "' must be called: " + name + "(...)");
    return record(expr, Type::unknown());
  }
  Diagnostic &d = error(codes::kUndefinedName, expr.range, "undefined name '" + name + "'");
  d.data = {{"name", name}};
  return record(expr, Type::unknown());
}

Type Analyzer::check_unary(const Expr &expr) {
  const Type operand = check_expr(*expr.operands[0]);
  const auto value = constant(*expr.operands[0]);
  if (operand.is_unknown())
    return record(expr, operand);
  switch (expr.unary_op) {
  case ast::UnaryOp::Not:
    if (!operand.is_numeric()) {
      error(codes::kInvalidOperand, expr.range,
            "'not' needs a bool or number, got " + operand.str());
      return record(expr, Type::unknown());
    }
    return record(expr, Type::scalar_of(ScalarKind::Bool),
                  value ? std::optional<int64_t>(*value == 0) : std::nullopt);
  case ast::UnaryOp::Invert:
    if (!operand.is_integer_like()) {
      error(codes::kInvalidOperand, expr.range, "'~' needs an integer, got " + operand.str());
      return record(expr, Type::unknown());
    }
    return record(expr, operand,
                  value ? int_eval::unary(ast::UnaryOp::Invert, *value).get() : std::nullopt);
  case ast::UnaryOp::Neg:
  case ast::UnaryOp::Pos:
    if (!operand.is_numeric() ||
        (operand.kind == TypeKind::Scalar && operand.scalar == ScalarKind::Bool)) {
      error(codes::kInvalidOperand, expr.range,
            std::string("unary '") + ast::to_string(expr.unary_op) + "' needs a number, got " +
                operand.str());
      return record(expr, Type::unknown());
    }
    if (const auto f = float_constant(*expr.operands[0]))
      return record_float(expr, expr.unary_op == ast::UnaryOp::Neg ? -*f : *f);
    if (value && expr.unary_op == ast::UnaryOp::Neg) {
      const auto negated = int_eval::negate(*value);
      if (!negated.ok()) {
        error(codes::kNotConstant, expr.range, "integer overflow in constant expression");
        return record(expr, Type::unknown());
      }
      return record(expr, operand, negated.value);
    }
    return record(expr, operand, value);
  }
  return record(expr, Type::unknown());
}

std::optional<Type> Analyzer::unify_numeric(const Expr &where, const Type &a, const Type &b,
                                            const char *op) {
  if (a.is_unknown() || b.is_unknown())
    return Type::unknown();
  if (!a.is_numeric() || !b.is_numeric()) {
    const Type &bad = a.is_numeric() ? b : a;
    std::string hint = bad.is_tensor() ? "; index the tensor to get its elements" : "";
    error(codes::kInvalidOperand, where.range,
          std::string("operator '") + op + "' needs numbers, got " + a.str() + " and " + b.str() +
              hint);
    return std::nullopt;
  }
  auto is_int_kind = [](const Type &t) { return t.is_integer_like(); };
  if (a.kind == TypeKind::IntLiteral && b.kind == TypeKind::IntLiteral)
    return a;
  if (a.kind != TypeKind::Scalar && b.kind != TypeKind::Scalar)
    return Type::of(TypeKind::FloatLiteral); // int literal with float literal
  if (a.kind != TypeKind::Scalar || b.kind != TypeKind::Scalar) {
    const Type &scalar = a.kind == TypeKind::Scalar ? a : b;
    const Type &literal = a.kind == TypeKind::Scalar ? b : a;
    if (literal.kind == TypeKind::FloatLiteral && !is_float(scalar.scalar)) {
      error(codes::kTypeMismatch, where.range,
            std::string("operator '") + op + "' mixes a float literal with " + scalar.str() +
                "; convert explicitly, e.g. f32(x)");
      return std::nullopt;
    }
    if (scalar.scalar == ScalarKind::Bool)
      return Type::scalar_of(ScalarKind::I32);
    return scalar;
  }
  if (a.scalar == b.scalar)
    return a;
  if (is_int_kind(a) && is_int_kind(b)) {
    // Integers mix to the wider type; at equal width unsigned wins, as in C.
    const int wa = a.scalar == ScalarKind::Bool ? 1 : bit_width(a.scalar);
    const int wb = b.scalar == ScalarKind::Bool ? 1 : bit_width(b.scalar);
    const Type &wider = wa > wb ? a : wb > wa ? b : (is_signed(a.scalar) ? b : a);
    return wider.scalar == ScalarKind::Bool || bit_width(wider.scalar) < 32
               ? Type::scalar_of(ScalarKind::I32)
               : wider;
  }
  Diagnostic &d = error(codes::kTypeMismatch, where.range,
                        std::string("operator '") + op + "' mixes " + a.str() + " and " + b.str() +
                            "; convert one explicitly, e.g. " + wider_float(a, b) + "(x)");
  d.data = {{"left", a.str()}, {"right", b.str()}};
  return std::nullopt;
}

Type Analyzer::check_binary(const Expr &expr) {
  const Type left = check_expr(*expr.operands[0]);
  const Type right = check_expr(*expr.operands[1]);
  const char *op = ast::to_string(expr.binary_op);
  auto common = unify_numeric(expr, left, right, op);
  if (!common)
    return record(expr, Type::unknown());
  if (common->is_unknown())
    return record(expr, *common);
  const bool both_integer = left.is_integer_like() && right.is_integer_like();
  if (is_integer_only(expr.binary_op) && !both_integer) {
    error(codes::kInvalidOperand, expr.range,
          std::string("operator '") + op + "' needs integers, got " + left.str() + " and " +
              right.str());
    return record(expr, Type::unknown());
  }
  const auto a = constant(*expr.operands[0]);
  const auto b = constant(*expr.operands[1]);
  if (expr.binary_op == BinaryOp::Div) {
    if (both_integer) {
      if (a && b) // Python true division: a float constant
        return fold_float_binary(expr, Type::of(TypeKind::FloatLiteral));
      error(codes::kInvalidOperand, expr.range,
            "'/' is true division and needs floats; use '//' for integers or convert with f32(x)");
      return record(expr, Type::unknown());
    }
    return fold_float_binary(expr, *common);
  }
  const bool float_constants = common->kind == TypeKind::FloatLiteral &&
                               numeric_constant(*expr.operands[0]) &&
                               numeric_constant(*expr.operands[1]);
  if (expr.binary_op == BinaryOp::Pow && !(a && b) && !float_constants) {
    error(codes::kNotConstant, expr.range,
          "'**' is only defined on compile-time numbers; use exp2/log2 or multiply");
    return record(expr, Type::unknown());
  }
  if (common->kind == TypeKind::FloatLiteral)
    return fold_float_binary(expr, *common);
  if (a && b && both_integer) {
    const int_eval::IntResult folded = int_eval::binary(expr.binary_op, *a, *b);
    if (!folded.ok()) {
      const bool by_zero = folded.error == int_eval::IntError::DivisionByZero;
      error(by_zero ? codes::kConstantDivByZero : codes::kNotConstant, expr.range,
            folded.error == int_eval::IntError::Overflow
                ? std::string("integer overflow in constant expression")
                : std::string(int_eval::describe(folded.error)) + " in a constant expression");
      return record(expr, Type::unknown());
    }
    return record(expr, *common, folded.value);
  }
  if (b && *b == 0 && (expr.binary_op == BinaryOp::FloorDiv || expr.binary_op == BinaryOp::Mod)) {
    error(codes::kConstantDivByZero, expr.operands[1]->range, "division by zero");
    return record(expr, Type::unknown());
  }
  // Operators on a literal and a runtime integer give a runtime integer.
  if (common->kind == TypeKind::IntLiteral && !(a && b))
    common = Type::scalar_of(ScalarKind::I32);
  return record(expr, *common);
}

Type Analyzer::check_compare(const Expr &expr) {
  std::vector<Type> operands;
  for (const auto &operand : expr.operands)
    operands.push_back(check_expr(*operand));
  bool ok = true;
  bool all_constant = true;
  bool value = true;
  for (size_t i = 0; i < expr.compare_ops.size(); ++i) {
    if (!unify_numeric(expr, operands[i], operands[i + 1], ast::to_string(expr.compare_ops[i])))
      ok = false;
    const auto a = constant(*expr.operands[i]);
    const auto b = constant(*expr.operands[i + 1]);
    const auto fa = numeric_constant(*expr.operands[i]);
    const auto fb = numeric_constant(*expr.operands[i + 1]);
    if (a && b)
      value = value && int_eval::compare(expr.compare_ops[i], *a, *b);
    else if (fa && fb) // a float among them: compared as Python does, in double
      value = value && compare_doubles(expr.compare_ops[i], *fa, *fb);
    else
      all_constant = false;
  }
  if (!ok)
    return record(expr, Type::unknown());
  return record(expr, Type::scalar_of(ScalarKind::Bool),
                all_constant ? std::optional<int64_t>(value) : std::nullopt);
}

Type Analyzer::check_bool_op(const Expr &expr) {
  const Type left = check_expr(*expr.operands[0]);
  const Type right = check_expr(*expr.operands[1]);
  for (const Type *t : {&left, &right}) {
    if (!t->is_unknown() && !t->is_numeric()) {
      error(codes::kInvalidOperand, expr.range,
            std::string("'") + ast::to_string(expr.bool_op) + "' needs bools, got " + t->str());
      return record(expr, Type::unknown());
    }
  }
  const auto a = constant(*expr.operands[0]);
  const auto b = constant(*expr.operands[1]);
  std::optional<int64_t> value;
  if (a && b)
    value = expr.bool_op == ast::BoolOpKind::And ? (*a && *b) : (*a || *b);
  return record(expr, Type::scalar_of(ScalarKind::Bool), value);
}

Type Analyzer::check_conditional(const Expr &expr) {
  check_condition(*expr.operands[0]);
  const Type then_type = check_expr(*expr.operands[1]);
  const Type else_type = check_expr(*expr.operands[2]);
  if (then_type.is_numeric() && else_type.is_numeric()) {
    auto common = unify_numeric(expr, then_type, else_type, "if-else");
    if (!common)
      return record(expr, Type::unknown());
    const auto c = constant(*expr.operands[0]);
    const auto value = c ? constant(*expr.operands[*c ? 1 : 2]) : std::nullopt;
    if (common->kind == TypeKind::IntLiteral && !value)
      common = Type::scalar_of(ScalarKind::I32);
    if (common->kind == TypeKind::FloatLiteral && c)
      if (const auto f = numeric_constant(*expr.operands[*c ? 1 : 2]))
        result_.float_values[&expr] = *f;
    return record(expr, *common, value);
  }
  if (!assignable(then_type, else_type) || !assignable(else_type, then_type)) {
    error(codes::kTypeMismatch, expr.range,
          "the branches of a conditional expression have different types: " + then_type.str() +
              " and " + else_type.str());
    return record(expr, Type::unknown());
  }
  return record(expr, then_type);
}

Type Analyzer::check_subscript(const Expr &expr) {
  const Type base = check_expr(*expr.operands[0]);
  std::vector<Type> indices;
  for (size_t i = 1; i < expr.operands.size(); ++i)
    indices.push_back(check_expr(*expr.operands[i]));
  if (base.is_unknown())
    return record(expr, base);
  if (base.kind == TypeKind::Tuple) {
    const auto index = expr.operands.size() == 2 ? constant(*expr.operands[1]) : std::nullopt;
    if (!index) {
      error(codes::kNotConstant, expr.range, "a tuple is indexed by one compile-time integer");
      return record(expr, Type::unknown());
    }
    if (*index < 0 || *index >= static_cast<int64_t>(base.elements.size())) {
      error(codes::kIndexOutOfBounds, expr.operands[1]->range,
            "index " + std::to_string(*index) + " is out of bounds for a tuple of " +
                std::to_string(base.elements.size()));
      return record(expr, Type::unknown());
    }
    return record(expr, base.elements[*index]);
  }
  if (!base.is_tensor()) {
    error(codes::kNotIndexable, expr.operands[0]->range,
          "only tensors can be indexed; this is " + base.str());
    return record(expr, Type::unknown());
  }
  const TensorType &tensor = *base.tensor;
  const size_t count = indices.size();
  if (count > tensor.shape.size()) {
    Diagnostic &d =
        error(codes::kIndexCount, expr.range,
              "too many indices: " + std::to_string(count) + " for a tensor of rank " +
                  std::to_string(tensor.shape.size()) + " " + shape_to_string(tensor.shape));
    d.data = {{"rank", tensor.shape.size()}, {"indices", count}};
    return record(expr, Type::unknown());
  }
  bool ok = true;
  for (size_t i = 0; i < count; ++i) {
    const ast::Expr &index = *expr.operands[i + 1];
    if (!indices[i].is_unknown() && !indices[i].is_integer_like()) {
      error(codes::kTypeMismatch, index.range,
            "an index must be an integer, got " + indices[i].str());
      ok = false;
      continue;
    }
    const auto value = constant(index);
    const Dim &extent = tensor.shape[i];
    if (value && (*value < 0 || (extent.value && *value >= *extent.value))) {
      Diagnostic &d = error(codes::kIndexOutOfBounds, index.range,
                            "index " + std::to_string(*value) + " is out of bounds for dimension " +
                                std::to_string(i) + " of size " + extent.str());
      d.data = {{"index", *value}, {"dimension", i}, {"size", extent.str()}};
      ok = false;
    }
  }
  if (!ok)
    return record(expr, Type::unknown());
  if (count == tensor.shape.size())
    return record(expr, Type::scalar_of(tensor.dtype));
  TensorType rest = tensor;
  rest.shape.erase(rest.shape.begin(), rest.shape.begin() + static_cast<long>(count));
  if (!rest.strides.empty())
    rest.strides.erase(rest.strides.begin(), rest.strides.begin() + static_cast<long>(count));
  return record(expr, Type::tensor_of(std::move(rest)));
}

std::optional<std::string> Analyzer::symbolic_text(const Expr &expr) const {
  if (const auto value = constant(expr))
    return std::to_string(*value);
  if (expr.kind == ExprKind::Name) {
    const auto it = result_.references.find(&expr);
    if (it != result_.references.end() && it->second->kind == SymbolKind::Parameter &&
        it->second->type.kind == TypeKind::Scalar && is_integer(it->second->type.scalar))
      return expr.name;
    return std::nullopt;
  }
  if (expr.kind == ExprKind::Binary) {
    auto left = symbolic_text(*expr.operands[0]);
    auto right = symbolic_text(*expr.operands[1]);
    if (!left || !right)
      return std::nullopt;
    auto wrap = [](const Expr &e, std::string text) {
      return e.kind == ExprKind::Binary ? "(" + text + ")" : text;
    };
    return wrap(*expr.operands[0], *left) + " " + ast::to_string(expr.binary_op) + " " +
           wrap(*expr.operands[1], *right);
  }
  if (const BuiltinId id = result_.builtin_of(expr);
      id == BuiltinId::Cdiv || id == BuiltinId::Min || id == BuiltinId::Max) {
    std::string text = expr.callee().name + "(";
    for (size_t i = 0; i < expr.arg_count(); ++i) {
      auto arg = symbolic_text(expr.arg(i));
      if (!arg)
        return std::nullopt;
      text += (i ? ", " : "") + *arg;
    }
    return text + ")";
  }
  return std::nullopt;
}

std::optional<Dim> Analyzer::dim_of(const Expr &expr) {
  const Type &t = type(expr);
  if (t.is_unknown())
    return std::nullopt;
  if (!t.is_integer_like()) {
    error(codes::kInvalidShape, expr.range, "a shape dimension must be an integer, got " + t.str());
    return std::nullopt;
  }
  if (const auto value = constant(expr)) {
    if (*value <= 0) {
      error(codes::kInvalidShape, expr.range,
            "a shape dimension must be positive, got " + std::to_string(*value));
      return std::nullopt;
    }
    return Dim::constant(*value);
  }
  if (auto text = symbolic_text(expr))
    return Dim::symbolic(*text);
  error(codes::kNotConstant, expr.range,
        "a shape dimension must be a compile-time constant or an expression of integer scalar "
        "parameters");
  return std::nullopt;
}

std::optional<std::vector<Dim>> Analyzer::shape_of(const Expr &expr, bool constant_only) {
  std::vector<const Expr *> dims;
  if (expr.kind == ExprKind::Tuple) {
    for (const auto &e : expr.operands)
      dims.push_back(e.get());
  } else {
    dims.push_back(&expr);
  }
  if (dims.empty()) {
    error(codes::kInvalidShape, expr.range, "a shape needs at least one dimension");
    return std::nullopt;
  }
  std::vector<Dim> shape;
  bool ok = true;
  for (const Expr *d : dims) {
    auto dim = dim_of(*d);
    if (!dim) {
      ok = false;
      continue;
    }
    if (constant_only && !dim->is_constant()) {
      error(codes::kNotConstant, d->range,
            "shared and local arrays need compile-time shapes; '" + dim->str() +
                "' depends on a runtime parameter");
      ok = false;
      continue;
    }
    shape.push_back(*dim);
  }
  if (!ok)
    return std::nullopt;
  return shape;
}

} // namespace argus::sema
