// The integer evaluator (argus/dsl/int_eval.h): Python semantics, int64
// results or an error.
#include "argus/dsl/int_eval.h"

#include <limits>

namespace argus::int_eval {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
IntResult value(int64_t v) { return int_value(v); }
IntResult failure(IntError e) { return int_failure(e); }

} // namespace

const char *describe(IntError error) {
  switch (error) {
  case IntError::None:
    return "no error";
  case IntError::Overflow:
    return "integer overflow";
  case IntError::DivisionByZero:
    return "division by zero";
  case IntError::NegativeShift:
    return "negative shift count";
  case IntError::NegativeExponent:
    return "negative exponent of an integer power";
  case IntError::NotInteger:
    return "'/' is not an integer operator";
  }
  return "unknown error";
}

IntResult power(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return failure(IntError::NegativeExponent);
  // Bases whose powers never grow, so huge exponents stay cheap.
  if (base == 0 || base == 1)
    return value(exponent == 0 ? 1 : base);
  if (base == -1)
    return value(exponent % 2 == 0 ? 1 : -1);
  int64_t result = 1;
  int64_t square = base;
  while (true) {
    if ((exponent & 1) != 0 && __builtin_mul_overflow(result, square, &result))
      return failure(IntError::Overflow);
    exponent >>= 1;
    if (exponent == 0)
      return value(result);
    // |base| >= 2 and a bit is left: a square that overflows makes the result overflow.
    if (__builtin_mul_overflow(square, square, &square))
      return failure(IntError::Overflow);
  }
}

IntResult unary(ast::UnaryOp op, int64_t a) {
  switch (op) {
  case ast::UnaryOp::Neg:
    return negate(a);
  case ast::UnaryOp::Pos:
    return value(a);
  case ast::UnaryOp::Not:
    return value(a == 0 ? 1 : 0);
  case ast::UnaryOp::Invert:
    return value(~a);
  }
  return failure(IntError::NotInteger);
}

IntResult cdiv(int64_t a, int64_t b) {
  if (b == 0)
    return failure(IntError::DivisionByZero);
  if (a == kMin && b == -1)
    return failure(IntError::Overflow);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++q; // C++ truncates; the ceiling is one up when the exact quotient is positive
  return value(q);
}

bool compare(ast::CompareOp op, int64_t a, int64_t b) {
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

} // namespace argus::int_eval
