; Argus syntax highlighting for the tree-sitter Python grammar (tree-sitter-python 0.23.6).
; The capture names are documented in grammar/README.md.
;
; Order matters: general patterns come first, Argus-specific ones last. When several patterns
; capture one node, the LATER pattern wins (Neovim's rule); every more specific capture is a
; dotted extension of, or a deliberate override of, the one before it.
;
; Predicates used: #eq?, #match?, #any-of? only. Regexes stay in the subset that ECMAScript,
; Rust regex and Vim's very-magic mode read the same way.

; ---------------------------------------------------------------------------------------------
; Identifiers

(identifier) @variable

; Module constants and compile-time parameters: ALL_CAPS names (BM, STAGES, M).
((identifier) @constant
  (#match? @constant "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------------------------------------
; Calls, attributes, definitions

(attribute
  attribute: (identifier) @variable.member)

(call
  function: (identifier) @function.call)

(call
  function: (attribute
    attribute: (identifier) @function.method.call))

(function_definition
  name: (identifier) @function)

; ---------------------------------------------------------------------------------------------
; Parameters (definitions in signatures and lambdas; keyword-argument names)

(parameters
  (identifier) @variable.parameter)

(typed_parameter
  (identifier) @variable.parameter)

(default_parameter
  name: (identifier) @variable.parameter)

(typed_default_parameter
  name: (identifier) @variable.parameter)

(lambda_parameters
  (identifier) @variable.parameter)

(keyword_argument
  name: (identifier) @variable.parameter)

; ---------------------------------------------------------------------------------------------
; Literals

(comment) @comment

(string) @string

(escape_sequence) @string.escape

; Docstrings: the first statement of the module or of a function body.
(module
  .
  (expression_statement
    (string) @string.documentation))

(function_definition
  body: (block
    .
    (expression_statement
      (string) @string.documentation)))

(integer) @number

(float) @number.float

[
  (true)
  (false)
] @boolean

(none) @constant.builtin

; ---------------------------------------------------------------------------------------------
; Operators and punctuation

[
  "+"
  "-"
  "*"
  "/"
  "//"
  "%"
  "**"
  "<<"
  ">>"
  "&"
  "|"
  "^"
  "~"
  "<"
  "<="
  ">"
  ">="
  "=="
  "!="
  "<>"
  "="
  "+="
  "-="
  "*="
  "/="
  "//="
  "%="
  "**="
  "<<="
  ">>="
  "&="
  "|="
  "^="
  "@="
  ":="
  "->"
  "@"
] @operator

[
  "and"
  "or"
  "not"
  "in"
  "is"
  "is not"
  "not in"
] @keyword.operator

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  "."
  ":"
  ";"
] @punctuation.delimiter

; ---------------------------------------------------------------------------------------------
; Keywords (including the Python ones Argus rejects: they still read as keywords)

[
  "def"
  "return"
  "if"
  "elif"
  "else"
  "for"
  "while"
  "pass"
  "lambda"
  "break"
  "continue"
  "class"
  "import"
  "from"
  "as"
  "try"
  "except"
  "finally"
  "raise"
  "with"
  "del"
  "global"
  "nonlocal"
  "assert"
  "yield"
  "async"
  "await"
] @keyword

; `in` of a for loop is part of the loop syntax, not the membership operator.
(for_statement
  "in" @keyword)

; ---------------------------------------------------------------------------------------------
; Argus: types

; Names used as annotations (`M: i32`, `x: f32 = 0.0`).
(type
  (identifier) @type)

; Dtypes, wherever they appear: annotations, Tensor(...) arguments, casts `f32(x)`.
((identifier) @type.builtin
  (#any-of? @type.builtin
    "i8" "i16" "i32" "i64" "u8" "u16" "u32" "u64"
    "f16" "bf16" "f32" "f64" "fp8e4m3" "fp8e5m2" "bool"))

; `STAGES: constexpr = 2`
((identifier) @type.qualifier
  (#eq? @type.qualifier "constexpr"))

; ---------------------------------------------------------------------------------------------
; Argus: builtins (in call position)

((call
  function: (identifier) @function.builtin)
  (#any-of? @function.builtin
    "thread_id" "block_id" "block_dim" "grid_dim" "lane_id" "warp_id" "warpgroup_id" "num_sms" "cluster_rank" "cluster_id" "cluster_sync"
    "cdiv" "min" "max" "abs" "convert" "bitcast"
    "exp" "exp2" "log" "log2" "sqrt" "rsqrt" "tanh" "fma"
    "make_shared" "make_local" "full" "view" "subview" "make_layout" "compose" "Swizzle"
    "syncthreads" "syncwarp" "threadfence" "shuffle" "shuffle_xor" "shuffle_up" "shuffle_down"
    "ballot" "any_sync" "all_sync"
    "atomic_add" "atomic_max" "atomic_min" "atomic_exch" "atomic_cas"
    "async_commit" "async_wait" "range" "assume" "Tensor"))

; Builtins that allocate memory, one per memory space: shared, local (registers), local filled.
((call
  function: (identifier) @function.builtin.memory)
  (#any-of? @function.builtin.memory "make_shared" "make_local" "full"))

; Builtin constants.
((identifier) @constant.builtin
  (#eq? @constant.builtin "inf"))

; Tag functions: checker directives that vanish from the generated code.
((call
  function: (identifier) @function.macro)
  (#any-of? @function.macro "tag" "assert_tag" "assert_tag_eq" "reset_tags" "assert_covered"))

; Intrinsics: nvvm.mma_m16n8k16_bf16_f32(...), amdgpu.s_waitcnt(...).
((attribute
  object: (identifier) @module.builtin
  attribute: (identifier) @function.builtin)
  (#any-of? @module.builtin "nvvm" "amdgpu"))

; ---------------------------------------------------------------------------------------------
; Argus: decorators

(decorator
  "@" @attribute)

(decorator
  (identifier) @attribute)

(decorator
  (call
    function: (identifier) @attribute))

((decorator
  (identifier) @attribute.builtin)
  (#any-of? @attribute.builtin "kernel" "device" "bench"))

((decorator
  (call
    function: (identifier) @attribute.builtin))
  (#any-of? @attribute.builtin "kernel" "device" "bench"))
