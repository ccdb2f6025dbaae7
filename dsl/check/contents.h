// Internal: integer tensor contents the host writes, chosen by Z3 from a
// kernel's assume(...) facts over them (assume(0 <= idx[i] < N for i in
// range(T)), assume(offsets[0] == 0)).
#pragma once

#include "argus/dsl/frontend.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace argus::check::detail {

// Tensor name → its elements in row-major order (those no fact names are 0).
using Contents = std::map<std::string, std::vector<int64_t>>;

// Whether an assumption talks about tensor contents (a subscript of a
// tensor, or a generator): such facts do not constrain the sizes.
bool is_content_fact(const sema::SemaResult &sema, const ast::Expr &fact);

// The tensors whose contents some assumption of the kernel states.
std::set<std::string> stated_tensors(const CheckedFile &file, const sema::FunctionInfo &kernel);

struct ContentChoice {
  std::vector<Contents> choices;        // distinct; empty when the kernel states no contents
  const ast::Expr *failed_at = nullptr; // the fact that could not be used, or the kernel
  std::string failure;                  // why no contents were chosen ("" when they were)
};

// Contents satisfying the kernel's content facts at `sizes`: the smallest
// and largest elements the facts allow, and an uneven ramp between them
// (empty groups, partial tiles).
ContentChoice choose_contents(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const std::map<std::string, int64_t> &sizes, unsigned timeout_ms);

} // namespace argus::check::detail
