// The full story of one invariant-checker counterexample (a violation's
// Diagnostic.data, docs/diagnostics.md#e09xx): for `argus.explain` in the
// language server, as structured data and as markdown.
#pragma once

#include "argus/dsl/frontend.h"
#include "argus/dsl/source.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace argus {

// A program point of the trace: where the violation happened, and the write
// or read it conflicts with.
struct ExplainSite {
  std::string role; // "violation", "write", "read", "other", "step" (of "history")
  Position position;
  std::string note;   // "the store (store)", "written here", ...
  std::string source; // the source line there, trimmed
};

struct Explanation {
  // {"kernel", "kind", "check", "code", "message", "sizes", "thread" (null for
  // grid-wide facts), "iteration", "element", "expected"?, "actual"?,
  // "found_by"?, "fixes", "details" (the kind's other fields), "replayed",
  // "history" (the offending element's steps, from its origin to the
  // violation: docs/checker.md, "Counterexample traces"; empty unless replayed)}.
  nlohmann::json trace;
  std::vector<ExplainSite> sites;
  std::string markdown;
};

// Explains `data`, the counterexample of a diagnostic with `code` and
// `message` in `file` (the checked text the diagnostic came from). `replayed`
// says whether check::replay confirms it on that text. Nothing when `data` is
// not a checker counterexample.
std::optional<Explanation> explain_counterexample(const CheckedFile &file,
                                                  const nlohmann::json &data, std::string_view code,
                                                  std::string_view message);

} // namespace argus
