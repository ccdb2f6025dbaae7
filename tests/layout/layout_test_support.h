// Helpers for the layout tests: parsing with failure messages, and comparing
// layouts as functions.
#pragma once

#include "argus/layout/layout.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace argus::layout::testing {

// Parses "shape:stride"; a parse failure fails the test and returns 1:0.
inline Layout L(std::string_view text) {
  Result<Layout> r = parse_layout(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.message();
  return r.ok() ? *r : Layout();
}

inline IntTuple T(std::string_view text) {
  Result<IntTuple> r = parse_int_tuple(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.message();
  return r.ok() ? *r : IntTuple();
}

// The offsets L(0), ..., L(n-1) (n = size by default).
inline std::vector<int64_t> values(const Layout &l, int64_t n = -1) {
  if (n < 0)
    n = size(l).value_or(0);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    out.push_back(l(i).value_or(-999999));
  return out;
}

// Same size and the same offset at every index.
inline ::testing::AssertionResult same_function(const Layout &a, const Layout &b) {
  const Result<int64_t> sa = size(a);
  const Result<int64_t> sb = size(b);
  if (!sa.ok() || !sb.ok() || *sa != *sb)
    return ::testing::AssertionFailure()
           << to_string(a) << " and " << to_string(b) << " have different sizes";
  for (int64_t i = 0; i < *sa; ++i) {
    const Result<int64_t> va = a(i);
    const Result<int64_t> vb = b(i);
    if (!va.ok() || !vb.ok() || *va != *vb)
      return ::testing::AssertionFailure()
             << to_string(a) << " and " << to_string(b) << " differ at index " << i << ": "
             << va.value_or(-1) << " vs " << vb.value_or(-1);
  }
  return ::testing::AssertionSuccess();
}

} // namespace argus::layout::testing
