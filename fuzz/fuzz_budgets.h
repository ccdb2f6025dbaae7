// Small checker budgets shared by the fuzz targets: one input must stay well
// under libFuzzer's -timeout (10 s in CI) with the invariant checker on, under
// ASan + UBSan + coverage instrumentation (about ten times slower than Release).
#pragma once

#include "argus/dsl/frontend.h"

namespace argus::fuzz {

inline FrontendOptions fuzz_frontend_options() {
  FrontendOptions options;
  options.max_file_bytes = 64 << 10; // inputs are small; bigger ones only slow the fuzzer
  options.invariants = true;
  check::CheckerOptions &c = options.checker;
  c.unroll_bound = 4;
  c.max_blocks = 1;
  c.max_global_cells = 1 << 14;
  c.max_steps = 5'000;
  c.max_block_cells = 1 << 14;
  c.query_timeout_ms = 100;
  return options;
}

} // namespace argus::fuzz
