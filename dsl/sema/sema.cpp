// Placeholder until semantic analysis lands.
#include "argus/dsl/sema.h"
namespace argus::sema {
SemaResult analyze(const ast::Module &, DiagnosticSink &, const SemaOptions &) { return {}; }
}
