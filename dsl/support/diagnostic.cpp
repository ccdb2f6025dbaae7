#include "argus/dsl/diagnostic.h"

#include <algorithm>

namespace argus {

const char *severity_name(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Information:
    return "note";
  case Severity::Hint:
    return "hint";
  }
  return "error";
}

Diagnostic &DiagnosticSink::error(std::string code, Range range, std::string message) {
  diagnostics_.push_back(
      Diagnostic{Severity::Error, std::move(code), range, std::move(message), {}, {}});
  return diagnostics_.back();
}

Diagnostic &DiagnosticSink::warning(std::string code, Range range, std::string message) {
  diagnostics_.push_back(
      Diagnostic{Severity::Warning, std::move(code), range, std::move(message), {}, {}});
  return diagnostics_.back();
}

bool DiagnosticSink::has_errors() const { return error_count() > 0; }

size_t DiagnosticSink::error_count() const {
  return static_cast<size_t>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic &d) { return d.severity == Severity::Error; }));
}

void sort_diagnostics(std::vector<Diagnostic> &diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [](const Diagnostic &a, const Diagnostic &b) {
                     if (a.range.begin != b.range.begin)
                       return a.range.begin < b.range.begin;
                     return a.code < b.code;
                   });
}

} // namespace argus
