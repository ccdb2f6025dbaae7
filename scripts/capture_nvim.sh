#!/usr/bin/env bash
# Prints a text capture of Neovim with the Argus plugin on a kernel with a
# missing barrier: the E0902 diagnostic and its float, as a user sees them
# (README.md, "Editors"). Runs Neovim in a detached tmux session of 100x32
# cells and prints `tmux capture-pane`. Needs tmux, nvim and a built
# build/cli/argus (and build/nvim/parser/argus.so for tree-sitter).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'tmux kill-session -t argus-capture 2>/dev/null || true; rm -rf "$work"' EXIT
# The corpus kernel without its test markers.
sed 's/  *# expect:.*$//' "$ROOT/tests/checker/corpus/missing_barrier_after_copy.argus" >"$work/gemm_tiled.argus"
cat > "$work/init.lua" <<LUA
vim.opt.runtimepath:prepend('$ROOT/editors/nvim')
vim.opt.runtimepath:prepend('$ROOT/build/nvim')
vim.cmd('filetype plugin indent on')
vim.cmd('syntax on')
vim.o.number = true
vim.o.wrap = false
require('argus').setup({ cmd = { '$ROOT/build/cli/argus', 'lsp' } })
-- Once the checker's diagnostic is there: the cursor on it and its float open.
vim.api.nvim_create_autocmd('DiagnosticChanged', { callback = function()
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.code == 'E0902' then
      vim.defer_fn(function()
        vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
        vim.cmd('normal! zz')
        vim.diagnostic.open_float({ scope = 'line', source = true, focusable = false,
          close_events = {} })
      end, 300)
      return true
    end
  end
end })
LUA
tmux new-session -d -s argus-capture -x 100 -y 32 \
  "cd '$work' && nvim -u '$work/init.lua' -i NONE -n gemm_tiled.argus"
for _ in $(seq 1 100); do
  sleep 0.2
  if tmux capture-pane -p -t argus-capture | grep -q 'argus: data race'; then
    sleep 0.3
    break
  fi
done
tmux capture-pane -p -t argus-capture
