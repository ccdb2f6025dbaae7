// What the checker established for one kernel, property by property: the
// verification summary of `argus check --format=json`, `--verbose` and hover.
//
// A clean check is only as good as what was checked. Each property says
// whether Z3 proved it for every size the assume(...) facts allow, the
// interpreter checked it at the size instances it ran (which), it was
// violated, it was not checked (why), or the kernel has nothing of that kind.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace argus::check {

enum class Verdict {
  AllSizes,   // proved by Z3 for all sizes, blocks, threads and iterations
  Instances,  // checked by the interpreter at the size instances only
  Violated,   // an error of this property was reported
  NotChecked, // not checked (the reason is in the detail)
  Absent,     // the kernel has nothing this property is about
};

// "all-sizes", "instances", "violated", "not-checked", "absent".
std::string_view verdict_name(Verdict verdict);

struct PropertyVerdict {
  std::string property; // "bounds", "races", "tags", ... (docs/checker.md)
  Verdict verdict = Verdict::NotChecked;
  std::string detail; // what the verdict rests on, or why it is not more
};

struct VerificationSummary {
  std::string kernel;
  std::vector<std::map<std::string, int64_t>> instances; // the sizes the interpreter ran
  std::vector<PropertyVerdict> properties;               // in docs/checker.md's order
  int64_t unproven = 0; // W0901 warnings of the kernel: places the check did not cover
};

nlohmann::json to_json(const VerificationSummary &summary);

// One line: "gemm: bounds all sizes; races, tags at 2 instances; operands absent; ...".
std::string summary_line(const VerificationSummary &summary);

} // namespace argus::check
