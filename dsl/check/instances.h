// Internal: size instances chosen by Z3 from a kernel's assume(...) facts.
#pragma once

#include "argus/dsl/frontend.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace argus::check::detail {

struct InstanceChoice {
  std::vector<std::map<std::string, int64_t>> instances;
  std::vector<const ast::Expr *> untranslated; // assume conditions Z3 could not take
  bool unsatisfiable = false;                  // no sizes satisfy the assumptions
  // Integers that are not sizes with a side no assume bounds: the values tried.
  std::vector<std::pair<const sema::Symbol *, std::vector<int64_t>>> sampled;
};

// The kernel's integer scalar parameters that are not constexpr.
std::vector<const sema::Symbol *> integer_params(const sema::FunctionInfo &kernel);
// Those a tensor shape or the grid names: sizes, at least 1. The others may
// be 0 or negative.
std::set<const sema::Symbol *> size_params(const sema::SemaResult &sema,
                                           const sema::FunctionInfo &kernel);

InstanceChoice choose_instances(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                unsigned timeout_ms);

// An instance larger than `base` where the assumptions allow: every size at
// least as large, the matrix dimensions (a tensor's last two) at least
// `threshold` (or as large as allowed up to it), the other integers as in
// `base`. With `only`: those sizes at least `threshold`, every other integer
// as in `base`. For loops that ran at most once at every instance. None when
// no instance is larger.
std::optional<std::map<std::string, int64_t>>
grow_instance(const CheckedFile &file, const sema::FunctionInfo &kernel,
              const std::map<std::string, int64_t> &base, int64_t threshold, unsigned timeout_ms,
              const std::set<std::string> &only = {});

// The sizes a loop's bounds depend on: named in its header (its range or
// condition), through the locals assigned to those names and the facts
// stated about the contents of the tensors they read.
std::set<std::string> sizes_driving(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                    const ast::Stmt &loop);

// The iterations a loop needs to reach its steady state: one more than the
// largest constant `c` of an `x % c` in its body where x depends on the loop
// variable (`stage = kt % STAGES`: every stage reused once), or 0.
int64_t wraparound_iterations(const CheckedFile &file, const ast::Stmt &loop);

// The elements of the kernel's tensor parameters at `sizes` (none when a
// dimension is not an integer expression of them).
std::optional<int64_t> global_elements(const CheckedFile &file, const sema::FunctionInfo &kernel,
                                       const std::map<std::string, int64_t> &sizes);

// Whether `sizes` satisfy the kernel's translatable assumptions (false also
// when Z3 cannot tell within the time limit).
bool satisfies_assumptions(const CheckedFile &file, const sema::FunctionInfo &kernel,
                           const std::map<std::string, int64_t> &sizes, unsigned timeout_ms);

} // namespace argus::check::detail
