; Argus scopes, definitions and references for the tree-sitter Python grammar.
; The capture names are documented in grammar/README.md.
;
; Argus has three kinds of scope: the module (constants, kernels, device functions), a function
; (its parameters and locals) and a lambda (the parameters of a tag function). Blocks of if/for/
; while do not open scopes: as in Python, a name assigned in a loop body is a local of the
; function.

; ---------------------------------------------------------------------------------------------
; Scopes

(module) @local.scope

(function_definition) @local.scope

(lambda) @local.scope

; ---------------------------------------------------------------------------------------------
; Definitions

; A function's name belongs to the scope around the function, not to the function itself.
(function_definition
  name: (identifier) @local.definition.function
  (#set! definition.function.scope "parent"))

; Parameters: `x`, `M: i32`, `x=1`, `STAGES: constexpr = 2`, lambda parameters.
(parameters
  (identifier) @local.definition.parameter)

(typed_parameter
  (identifier) @local.definition.parameter)

(default_parameter
  name: (identifier) @local.definition.parameter)

(typed_default_parameter
  name: (identifier) @local.definition.parameter)

(lambda_parameters
  (identifier) @local.definition.parameter)

; Assignments: `x = ...`, `x: f32 = ...`, `a, b = ...`, `(a, b) = ...`.
(assignment
  left: (identifier) @local.definition.var)

(assignment
  left: (pattern_list
    (identifier) @local.definition.var))

(assignment
  left: (tuple_pattern
    (identifier) @local.definition.var))

; For targets: `for k in range(...)`, `for i, j in ...`.
(for_statement
  left: (identifier) @local.definition.var)

(for_statement
  left: (pattern_list
    (identifier) @local.definition.var))

(for_statement
  left: (tuple_pattern
    (identifier) @local.definition.var))

; ---------------------------------------------------------------------------------------------
; References: every identifier. This includes a definition's own identifier (resolvers prefer
; the definition) and, since a query cannot exclude a context, the names that are fields of
; something else rather than uses of a local: the `attribute:` of an attribute (`t.tile`,
; `nvvm.mma_m16n8k16_bf16_f32`) and the `name:` of a keyword argument (`unroll=`). Resolvers
; skip those two.

(identifier) @local.reference
