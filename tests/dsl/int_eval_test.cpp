// The shared integer evaluator: Python semantics, and an error for every
// result outside int64 instead of a wrapped or undefined value.
#include "argus/dsl/int_eval.h"

#include <gtest/gtest.h>

#include <limits>

namespace argus::int_eval {
namespace {

using ast::BinaryOp;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t ok(IntResult r) {
  EXPECT_TRUE(r.ok()) << describe(r.error);
  return r.value;
}

TEST(IntEval, FloorDivisionRoundsTowardNegativeInfinity) {
  EXPECT_EQ(ok(floor_div(7, 2)), 3);
  EXPECT_EQ(ok(floor_div(-7, 2)), -4);
  EXPECT_EQ(ok(floor_div(7, -2)), -4);
  EXPECT_EQ(ok(floor_div(-7, -2)), 3);
  EXPECT_EQ(ok(floor_div(kMin, 1)), kMin);
  EXPECT_EQ(ok(floor_div(kMin, 2)), kMin / 2);
}

TEST(IntEval, ModuloTakesTheDivisorsSign) {
  EXPECT_EQ(ok(floor_mod(7, 3)), 1);
  EXPECT_EQ(ok(floor_mod(-7, 3)), 2);
  EXPECT_EQ(ok(floor_mod(7, -3)), -2);
  EXPECT_EQ(ok(floor_mod(-7, -3)), -1);
  EXPECT_EQ(ok(floor_mod(kMin, 3)), 1); // -2**63 = 3 * (-3074457345618258603) + 1
}

TEST(IntEval, MinimumDividedByMinusOneOverflows) {
  EXPECT_EQ(floor_div(kMin, -1).error, IntError::Overflow);
  EXPECT_EQ(binary(BinaryOp::FloorDiv, kMin, -1).error, IntError::Overflow);
  EXPECT_EQ(cdiv(kMin, -1).error, IntError::Overflow);
  // The remainder is defined (0) although C++'s `%` traps on it.
  EXPECT_EQ(ok(floor_mod(kMin, -1)), 0);
  EXPECT_EQ(ok(binary(BinaryOp::Mod, kMin, -1)), 0);
}

TEST(IntEval, DivisionByZeroIsAnError) {
  EXPECT_EQ(floor_div(1, 0).error, IntError::DivisionByZero);
  EXPECT_EQ(floor_mod(1, 0).error, IntError::DivisionByZero);
  EXPECT_EQ(cdiv(1, 0).error, IntError::DivisionByZero);
  EXPECT_EQ(binary(BinaryOp::Div, 4, 2).error, IntError::NotInteger);
}

TEST(IntEval, CeilingDivision) {
  EXPECT_EQ(ok(cdiv(7, 2)), 4);
  EXPECT_EQ(ok(cdiv(-7, 2)), -3);
  EXPECT_EQ(ok(cdiv(7, -2)), -3);
  EXPECT_EQ(ok(cdiv(-7, -2)), 4);
  EXPECT_EQ(ok(cdiv(8, 2)), 4);
  EXPECT_EQ(ok(cdiv(kMin, 2)), kMin / 2);
  EXPECT_EQ(ok(cdiv(kMax, kMax)), 1);
}

TEST(IntEval, ArithmeticOverflowIsAnError) {
  EXPECT_EQ(binary(BinaryOp::Add, kMax, 1).error, IntError::Overflow);
  EXPECT_EQ(binary(BinaryOp::Sub, kMin, 1).error, IntError::Overflow);
  EXPECT_EQ(binary(BinaryOp::Mul, int64_t{1} << 32, int64_t{1} << 31).error, IntError::Overflow);
  EXPECT_EQ(ok(binary(BinaryOp::Mul, -(int64_t{1} << 32), int64_t{1} << 31)), kMin);
  EXPECT_EQ(negate(kMin).error, IntError::Overflow);
  EXPECT_EQ(absolute(kMin).error, IntError::Overflow);
  EXPECT_EQ(ok(absolute(kMin + 1)), kMax);
}

TEST(IntEval, ShiftsFollowPython) {
  EXPECT_EQ(ok(shift_left(1, 62)), int64_t{1} << 62);
  EXPECT_EQ(shift_left(1, 63).error, IntError::Overflow);
  EXPECT_EQ(shift_left(1, 64).error, IntError::Overflow);
  EXPECT_EQ(shift_left(3, 62).error, IntError::Overflow);
  EXPECT_EQ(ok(shift_left(-1, 63)), kMin);
  EXPECT_EQ(ok(shift_left(-3, 2)), -12);
  EXPECT_EQ(ok(shift_left(0, 1000)), 0);
  EXPECT_EQ(shift_left(1, -1).error, IntError::NegativeShift);
  EXPECT_EQ(ok(shift_right(-8, 1)), -4);
  EXPECT_EQ(ok(shift_right(-7, 1)), -4); // floor(-3.5)
  EXPECT_EQ(ok(shift_right(kMax, 63)), 0);
  EXPECT_EQ(ok(shift_right(kMax, 64)), 0);
  EXPECT_EQ(ok(shift_right(-5, 64)), -1);
  EXPECT_EQ(ok(shift_right(-5, 1000)), -1);
  EXPECT_EQ(shift_right(1, -1).error, IntError::NegativeShift);
}

TEST(IntEval, PowerOverflowsExactlyPastInt64) {
  EXPECT_EQ(ok(power(2, 62)), int64_t{1} << 62);
  EXPECT_EQ(power(2, 63).error, IntError::Overflow);
  EXPECT_EQ(ok(power(-2, 63)), kMin);
  EXPECT_EQ(power(-2, 64).error, IntError::Overflow);
  EXPECT_EQ(ok(power(3, 39)), 4052555153018976267);
  EXPECT_EQ(power(3, 40).error, IntError::Overflow);
  EXPECT_EQ(ok(power(10, 18)), 1000000000000000000);
  EXPECT_EQ(power(10, 19).error, IntError::Overflow);
  EXPECT_EQ(ok(power(0, 0)), 1);
  EXPECT_EQ(ok(power(7, 0)), 1);
  EXPECT_EQ(ok(power(1, kMax)), 1);
  EXPECT_EQ(ok(power(-1, kMax)), -1);
  EXPECT_EQ(ok(power(0, kMax)), 0);
  EXPECT_EQ(power(2, -1).error, IntError::NegativeExponent);
}

TEST(IntEval, ComparisonsAndBitwise) {
  EXPECT_TRUE(compare(ast::CompareOp::Lt, kMin, kMax));
  EXPECT_FALSE(compare(ast::CompareOp::Ge, -1, 0));
  EXPECT_TRUE(compare(ast::CompareOp::Ne, 1, 2));
  EXPECT_EQ(ok(binary(BinaryOp::BitAnd, 12, 10)), 8);
  EXPECT_EQ(ok(binary(BinaryOp::BitOr, 12, 10)), 14);
  EXPECT_EQ(ok(binary(BinaryOp::BitXor, 12, 10)), 6);
  EXPECT_EQ(ok(unary(ast::UnaryOp::Invert, 0)), -1);
  EXPECT_EQ(ok(unary(ast::UnaryOp::Not, 5)), 0);
}

} // namespace
} // namespace argus::int_eval
