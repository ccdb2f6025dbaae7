// Internal: the verification summary of one kernel from its report.
#pragma once

#include "argus/dsl/checker.h"

#include <z3++.h>

#include <map>
#include <memory>
#include <set>
#include <string>

namespace argus::check::detail {

// How far the Z3 proofs reached (symbolic.cpp, grid_races.cpp).
struct ProofReach {
  int64_t global_accesses = 0;          // subscripts of global tensors in the kernel
  int64_t global_proved = 0;            // of those, every index proved in bounds for all sizes
  std::set<std::string> opaque_tensors; // global tensors used other than by subscripts
  bool grid_sampled = false;            // the interpreter ran part of some grid
  bool grid_proved = false;             // and Z3 proved races between all of its blocks
  bool races_proved = false;            // every race ruled out for all sizes (threads and blocks)
  std::string races_why;                // when not: why the proof did not cover the kernel
  bool tags_proved = false;             // every assert_tag field proved for all sizes
  bool stores_proved = false;           // every store into a tagged tensor, likewise
  std::string tags_why, stores_why;     // when not: why
  bool operands_proved = false;         // every matrix instruction's operand contract, likewise
  std::string operands_why;
  // The bounds proof's solver with the kernel's facts (sizes, ids, assume),
  // every query of it in a scope of its own: later proofs of the kernel reuse
  // it (a new default solver costs ~6 ms to create and check first).
  std::shared_ptr<z3::solver> kernel_solver;
};

// What a kernel and the @device functions it reaches call.
struct Callees {
  std::map<BuiltinId, size_t> builtins; // → calls written (a @device function's once)
  bool device = false;                  // some @device function
  bool device_tensors =
      false; // some @device function taking a tensor (its accesses are in its body)
  bool has(BuiltinId id) const { return builtins.count(id) != 0; }
  template <class Pred> bool any(Pred pred) const { return count_if(pred) != 0; }
  // Calls written of the builtins `pred` holds for.
  template <class Pred> size_t count_if(Pred pred) const {
    size_t n = 0;
    for (const auto &[id, calls] : builtins)
      if (pred(id))
        n += calls;
    return n;
  }
};
Callees calls_in(const sema::SemaResult &sema, const ast::Function &kernel);
// The same for one statement (with its nested statements).
Callees calls_in(const sema::SemaResult &sema, const ast::Stmt &stmt);

VerificationSummary summarize(const CheckedFile &file, const sema::FunctionInfo &kernel,
                              const CheckerOptions &options, const KernelReport &report,
                              const ProofReach &reach);

} // namespace argus::check::detail
