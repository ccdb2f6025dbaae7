// Internal to argus_layout: checked int64 arithmetic and the boundary that
// turns internal failures into Result errors.
//
// Inside the library a failure is thrown as a Failure and caught by guard() in
// the public function that started the operation, so no exception crosses the
// library's API and the algorithms read like the mathematics.
#pragma once

#include "argus/layout/result.h"

#include <cstdint>
#include <string>
#include <utility>

namespace argus::layout::detail {

struct Failure {
  std::string message;
};

[[noreturn]] inline void fail(std::string message) { throw Failure{std::move(message)}; }

inline int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("int64 overflow in " + std::to_string(a) + " * " + std::to_string(b));
  return r;
}

inline int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail("int64 overflow in " + std::to_string(a) + " + " + std::to_string(b));
  return r;
}

inline int64_t sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    fail("int64 overflow in " + std::to_string(a) + " - " + std::to_string(b));
  return r;
}

// Floor division and its remainder (non-negative for positive b).
inline int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0)
    fail("division by zero");
  if (a == INT64_MIN && b == -1)
    fail("int64 overflow in " + std::to_string(a) + " / -1");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

inline int64_t floor_mod(int64_t a, int64_t b) {
  if (b == 0)
    fail("modulo by zero");
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

// ceil(a / b) for a >= 0, b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) {
  if (b <= 0)
    fail("ceil_div by a non-positive number");
  return a / b + (a % b != 0 ? 1 : 0);
}

// Runs `body` and returns its value, or the failure it threw as an Error.
template <class F> auto guard(F &&body) -> Result<decltype(body())> {
  try {
    return body();
  } catch (const Failure &failure) {
    return Error{failure.message};
  }
}

// The value of a Result, or a thrown Failure with its message.
template <class T> T take(Result<T> r) {
  if (!r.ok())
    fail(r.error().message);
  return std::move(r).value();
}

} // namespace argus::layout::detail
