// Small checker budgets shared by the fuzz targets: one input must stay well
// under libFuzzer's -timeout (10 s in CI) with the invariant checker on, under
// ASan + UBSan + coverage instrumentation (about ten times slower than Release).
#pragma once

#include "argus/dsl/driver.h"

#include <z3.h>

namespace argus::fuzz {

// Z3 4.8.12 (Debian 12) times a query with a timer from a thread pool that can
// deadlock when timers expire back to back (Z3Prover/z3#5371, #5990): in CI a
// fuzz input's query once hung in a mutex inside Z3_solver_check for the whole
// 10 s. Fuzzing makes short timeouts expire constantly, so here each query's
// work is bounded by Z3's resource limit instead (deterministic, no timer
// thread), under a timeout that does not expire.
inline void bound_z3_queries_by_resources() { Z3_global_param_set("rlimit", "400000"); }

inline FrontendOptions fuzz_frontend_options() {
  bound_z3_queries_by_resources();
  FrontendOptions options;
  options.max_file_bytes = 64 << 10; // inputs are small; bigger ones only slow the fuzzer
  options.invariants = true;
  check::CheckerOptions &c = options.checker;
  c.unroll_bound = 4;
  c.max_blocks = 1;
  c.max_global_cells = 1 << 14;
  c.max_steps = 5'000;
  c.max_block_cells = 1 << 14;
  c.query_timeout_ms = 8000; // the resource limit ends a query long before
  return options;
}

} // namespace argus::fuzz
