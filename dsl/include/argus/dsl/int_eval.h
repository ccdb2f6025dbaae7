// The one integer evaluator of the language, shared by sema's constant
// folding, the checker's interpreter and codegen's host-side folding.
//
// The rule: operators compute on mathematical integers with Python's
// semantics (`//` and `%` round toward negative infinity, `>>` is a floor
// division by a power of two, `<<` a multiplication by one); a result outside
// int64 is an error (IntError::Overflow), never a wrapped or undefined value.
// Also errors: division or modulo by zero, a negative shift count, a
// negative exponent (Python would give a float) and `/` (true division is not
// an integer operator). Sema and codegen report an error as "integer overflow
// in constant expression" (or division by zero); the checker, whose values
// are the kernel's own, reports W0901 at the expression.
#pragma once

#include "argus/dsl/ast.h"

#include <cstdint>
#include <optional>

namespace argus::int_eval {

enum class IntError { None, Overflow, DivisionByZero, NegativeShift, NegativeExponent, NotInteger };

struct IntResult {
  int64_t value = 0;
  IntError error = IntError::None;
  bool ok() const { return error == IntError::None; }
  std::optional<int64_t> get() const { return ok() ? std::optional<int64_t>(value) : std::nullopt; }
};

// What went wrong, as the end of a sentence: "integer overflow", "division by zero", ...
const char *describe(IntError error);

IntResult power(int64_t base, int64_t exponent);
IntResult unary(ast::UnaryOp op, int64_t a); // `not` gives 0 or 1
IntResult cdiv(int64_t a, int64_t b);        // ceil(a / b)
bool compare(ast::CompareOp op, int64_t a, int64_t b);

// Inline below: the checker evaluates these once per thread and element.
inline IntResult int_value(int64_t v) { return IntResult{v, IntError::None}; }
inline IntResult int_failure(IntError e) { return IntResult{0, e}; }

inline IntResult floor_div(int64_t a, int64_t b) {
  if (b == 0)
    return int_failure(IntError::DivisionByZero);
  if (a == INT64_MIN && b == -1) // the one quotient outside int64
    return int_failure(IntError::Overflow);
  const int64_t q = a / b;
  return int_value(a % b != 0 && ((a < 0) != (b < 0)) ? q - 1 : q);
}

inline IntResult floor_mod(int64_t a, int64_t b) {
  if (b == 0)
    return int_failure(IntError::DivisionByZero);
  if (b == -1) // INT64_MIN % -1 traps in C++; every remainder by -1 is 0
    return int_value(0);
  const int64_t r = a % b;
  return int_value(r != 0 && ((r < 0) != (b < 0)) ? r + b : r);
}

inline IntResult shift_left(int64_t a, int64_t count) {
  if (count < 0)
    return int_failure(IntError::NegativeShift);
  if (a == 0)
    return int_value(0);
  if (count >= 63)
    return a == -1 && count == 63 ? int_value(INT64_MIN) : int_failure(IntError::Overflow);
  const int64_t limit = INT64_MAX >> count;
  if (a > limit || a < -limit - 1)
    return int_failure(IntError::Overflow);
  return int_value(static_cast<int64_t>(static_cast<uint64_t>(a) << count));
}

inline IntResult shift_right(int64_t a, int64_t count) {
  if (count < 0)
    return int_failure(IntError::NegativeShift);
  if (count >= 64)
    return int_value(a < 0 ? -1 : 0);
  return int_value(a >> count); // arithmetic in C++20: the floor of a / 2**count
}

inline IntResult negate(int64_t a) {
  return a == INT64_MIN ? int_failure(IntError::Overflow) : int_value(-a);
}

inline IntResult absolute(int64_t a) { return a < 0 ? negate(a) : int_value(a); }

inline IntResult binary(ast::BinaryOp op, int64_t a, int64_t b) {
  int64_t out = 0;
  switch (op) {
  case ast::BinaryOp::Add:
    return __builtin_add_overflow(a, b, &out) ? int_failure(IntError::Overflow) : int_value(out);
  case ast::BinaryOp::Sub:
    return __builtin_sub_overflow(a, b, &out) ? int_failure(IntError::Overflow) : int_value(out);
  case ast::BinaryOp::Mul:
    return __builtin_mul_overflow(a, b, &out) ? int_failure(IntError::Overflow) : int_value(out);
  case ast::BinaryOp::FloorDiv:
    return floor_div(a, b);
  case ast::BinaryOp::Mod:
    return floor_mod(a, b);
  case ast::BinaryOp::Pow:
    return power(a, b);
  case ast::BinaryOp::Shl:
    return shift_left(a, b);
  case ast::BinaryOp::Shr:
    return shift_right(a, b);
  case ast::BinaryOp::BitAnd:
    return int_value(a & b);
  case ast::BinaryOp::BitOr:
    return int_value(a | b);
  case ast::BinaryOp::BitXor:
    return int_value(a ^ b);
  case ast::BinaryOp::Div:
    break;
  }
  return int_failure(IntError::NotInteger);
}

} // namespace argus::int_eval
