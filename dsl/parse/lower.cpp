// Placeholder until the lowering lands.
#include "argus/dsl/lower.h"
namespace argus {
ast::Module lower_module(const SyntaxTree &, const SourceFile &, DiagnosticSink &, const LowerOptions &) { return {}; }
}
