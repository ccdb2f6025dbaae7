// Syntax tree → AST (dsl/parse).
//
// Reports syntax errors (E01xx), constructs outside the Argus subset (E02xx)
// and input limits (E00xx); each is reported once, at the narrowest range, and
// lowering continues with the next statement so one file shows all its errors.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/diagnostic.h"
#include "argus/dsl/source.h"
#include "argus/dsl/syntax_tree.h"

namespace argus {

struct LowerOptions {
  // Deeper expressions are reported (E0004) instead of lowered, so no stage
  // recurses without bound (10,000 nested parentheses must not overflow).
  int max_expression_depth = 200;
};

ast::Module lower_module(const SyntaxTree &tree, const SourceFile &source, DiagnosticSink &sink,
                         const LowerOptions &options = {});

} // namespace argus
