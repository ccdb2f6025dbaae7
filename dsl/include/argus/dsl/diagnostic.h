// Diagnostics: what every stage of Argus reports, in editor terms.
//
// A diagnostic carries a stable code (see docs/diagnostics.md), a range in
// the source, a one-line message and optional structured data (JSON, because
// agents read it and LSP carries it verbatim as `Diagnostic.data`).
#pragma once

#include "argus/dsl/source.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace argus {

enum class Severity { Error = 1, Warning = 2, Information = 3, Hint = 4 };

const char *severity_name(Severity severity);

struct RelatedInformation {
  Range range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code; // stable, e.g. "E0301"
  Range range;
  std::string message;
  nlohmann::json data; // null when there is nothing structured to add
  std::vector<RelatedInformation> related;
};

// Collects diagnostics of one file. Stages append; nobody removes.
class DiagnosticSink {
public:
  Diagnostic &error(std::string code, Range range, std::string message);
  Diagnostic &warning(std::string code, Range range, std::string message);
  void add(Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }

  const std::vector<Diagnostic> &diagnostics() const { return diagnostics_; }
  std::vector<Diagnostic> take() { return std::move(diagnostics_); }
  bool has_errors() const;
  size_t error_count() const;

private:
  std::vector<Diagnostic> diagnostics_;
};

// Sorts by position, then code; keeps equal diagnostics in insertion order.
void sort_diagnostics(std::vector<Diagnostic> &diagnostics);

} // namespace argus
