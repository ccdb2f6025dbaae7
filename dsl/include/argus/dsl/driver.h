// The driver: the front end, then the invariant checker, as one call. It sits
// above both (dsl/driver/), so neither the front end nor the checker depends
// on the other's caller; `argus check`, the language server, codegen's
// pipeline, the benchmarks and the fuzzers call check_source.
#pragma once

#include "argus/dsl/checker.h"
#include "argus/dsl/checker_options.h"
#include "argus/dsl/frontend.h"

namespace argus {

// What check_source takes: the front end's options, and whether and how the
// invariant checker runs.
struct FrontendOptions : ParseOptions {
  // Run the data-flow invariant checker (dsl/check) on files without
  // front-end errors; its violations join the diagnostics (E09xx/W09xx).
  bool invariants = true;
  check::CheckerOptions checker;
  check::CheckCache *cache = nullptr; // per-kernel results to reuse; may be null
};

// Checks `text` as the contents of `path` (used only in messages): the front
// end (analyze_source), then, on a file without front-end errors, the
// invariant checker; its diagnostics join the front end's (sorted) and each
// kernel's verification summary is in `verification`. With `edited_tree`, the
// parse reuses the unchanged parts of an earlier tree.
CheckedFile check_source(std::string path, std::string text, const FrontendOptions &options = {},
                         const SyntaxTree *edited_tree = nullptr);

} // namespace argus
