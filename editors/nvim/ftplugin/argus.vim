" Argus is Python-shaped: comments, indentation after ':' and 4-space indents.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1
setlocal commentstring=#\ %s comments=:#
setlocal expandtab shiftwidth=4 softtabstop=4 tabstop=8
setlocal indentexpr=
setlocal autoindent smartindent cinwords=if,elif,else,for,while,def
let b:undo_ftplugin = 'setlocal commentstring< comments< expandtab< shiftwidth< softtabstop< tabstop< indentexpr< autoindent< smartindent< cinwords<'
