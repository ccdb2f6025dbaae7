// check_source: the front end, then the invariant checker.
#include "argus/dsl/driver.h"

namespace argus {

CheckedFile check_source(std::string path, std::string text, const FrontendOptions &options,
                         const SyntaxTree *edited_tree) {
  CheckedFile result = analyze_source(std::move(path), std::move(text), options, edited_tree);
  if (!options.invariants || !result.sema || result.has_errors())
    return result;
  const auto reports = check::check_kernels(result, options.checker, options.cache);
  for (Diagnostic &d : check::to_diagnostics(reports))
    result.diagnostics.push_back(std::move(d));
  for (const check::KernelReport &r : reports)
    result.verification.push_back(r.summary);
  sort_diagnostics(result.diagnostics);
  return result;
}

} // namespace argus
