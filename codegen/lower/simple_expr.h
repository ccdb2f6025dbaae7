// Internal: printing scalar-parameter expressions (grid, shapes, assumes,
// @bench counts) as Python for meta.json and as int64 C++ for the host checks.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/sema.h"

#include <map>
#include <optional>
#include <string>

namespace argus::codegen::detail {

enum class SimpleStyle { Python, HostCpp };

struct SimpleContext {
  const sema::SemaResult *sema = nullptr;
  // Module constants and constexpr parameters: folded to their values.
  std::map<std::string, int64_t> constants;
  // HostCpp: how a scalar parameter is spelled (default: its name).
  std::map<std::string, std::string> renames;
};

// The expression in `style`, or nullopt (with `why`) when it uses something
// outside literals, names, arithmetic, comparisons, and/or/not, conditionals
// and cdiv/min/max/abs.
std::optional<std::string> print_simple(const ast::Expr &e, const SimpleContext &context,
                                        SimpleStyle style, std::string *why = nullptr);

// Evaluates an integer expression of the same subset with the given values
// by the shared integer evaluator (argus/dsl/int_eval.h); nullopt when a name
// is unbound or the value is not an int64 (overflow, division by zero).
std::optional<int64_t> evaluate_simple(const ast::Expr &e, const SimpleContext &context,
                                       const std::map<std::string, int64_t> &values);

} // namespace argus::codegen::detail
