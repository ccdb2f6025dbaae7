; Argus folding ranges for the tree-sitter Python grammar.
; Every capture is @fold: the fold spans the node's lines. Editors fold only captured nodes that
; span more than one line (Neovim's foldexpr and the LSP's foldingRange both skip one-line nodes).

[
  ; Function bodies (from the `def` line to the end of the body).
  (function_definition)
  ; Control flow: the whole statement, and each elif/else clause on its own.
  (if_statement)
  (elif_clause)
  (else_clause)
  (for_statement)
  (while_statement)
  ; Multi-line calls, signatures and bracketed expressions.
  (argument_list)
  (parameters)
  (parenthesized_expression)
  (tuple)
  (dictionary)
  (list)
  ; Multi-line strings (docstrings).
  (string)
] @fold

