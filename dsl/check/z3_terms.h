// Internal: Argus integer expressions as Z3 terms (the one place that
// translates our AST to Z3; no Z3 type leaves dsl/check).
#pragma once

#include "argus/dsl/sema.h"

#include <z3++.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace argus::check::detail {

// This thread's Z3 context, for every proof the thread runs: creating one
// costs ~3 ms (its parameter tables), which for a file of small kernels was
// most of the check. Terms are reference counted, so proofs leave nothing
// behind; solvers are made per proof.
z3::context &thread_z3_context();

// Translates integer and boolean expressions over named integer variables.
// `lookup` gives the term of a name (a size, a thread id, a loop variable)
// or nothing, in which case the expression cannot be translated.
class Z3Terms {
public:
  using Lookup = std::function<std::optional<z3::expr>(const ast::Expr &name)>;

  Z3Terms(z3::context &ctx, const sema::SemaResult &sema, Lookup lookup, Lookup call = nullptr,
          Lookup subscript = nullptr)
      : ctx_(ctx), sema_(sema), lookup_(std::move(lookup)), call_(std::move(call)),
        subscript_(std::move(subscript)) {}

  // An Int-sorted term, or nothing when some part is outside the fragment.
  std::optional<z3::expr> integer(const ast::Expr &e);
  // A Bool-sorted term (comparisons, and/or/not, or an integer ≠ 0).
  std::optional<z3::expr> boolean(const ast::Expr &e);

private:
  z3::context &ctx_;
  const sema::SemaResult &sema_;
  Lookup lookup_;
  Lookup call_;      // calls other than cdiv/min/max (launch coordinates, @device functions)
  Lookup subscript_; // t[i]: an element of a tensor's contents (assume facts over contents)
};

// Floor division and modulo (Python semantics) for a divisor that may be negative.
z3::expr floor_div(const z3::expr &a, const z3::expr &b);
z3::expr floor_mod(const z3::expr &a, const z3::expr &b);

// Whether `e` contains one of the constants `consts` (a thread id, a loop variable).
bool mentions(const z3::expr &e, const std::vector<z3::expr> &consts);

} // namespace argus::check::detail
