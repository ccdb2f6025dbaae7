-- The Neovim plugin (editors/nvim) as a user installs it: the plugin and the
-- built parser on runtimepath, `filetype plugin on`, require('argus').setup{}.
-- A kernel with a missing barrier: filetype, the client the plugin starts, the
-- E0902 with its counterexample, :ArgusExplain (its history in the quickfix
-- list), the quick fix through vim.lsp.buf.code_action (the diagnostic goes),
-- :ArgusCompile emit-only (an artifact on disk), :ArgusLayout, tree-sitter
-- captures of a builtin, an intrinsic and a tag call, and :checkhealth argus.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(dir .. '/argus_client.lua')

t.run(function()
  local source = t.env('ARGUS_SOURCE_DIR')
  vim.opt.runtimepath:prepend(source .. '/editors/nvim')
  vim.opt.runtimepath:prepend(t.env('ARGUS_NVIM_PARSER_DIR'))
  vim.cmd('filetype plugin indent on')
  vim.cmd('syntax on')
  require('argus').setup({ cmd = { t.env('ARGUS_BINARY'), 'lsp', '--log-level=error' } })

  local path = t.copy_fixture('tests/checker/corpus/missing_barrier_after_copy.argus')
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buffer = vim.api.nvim_get_current_buf()
  if vim.bo[buffer].filetype ~= 'argus' then
    t.fail('filetype is "' .. vim.bo[buffer].filetype .. '", not argus')
  end
  local argus = require('argus')
  t.wait_for('the plugin to start argus lsp', function()
    local client = argus.client(buffer)
    return client ~= nil and client.initialized
  end)
  local client = argus.client(buffer)

  local function race()
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      if d.code == 'E0902' then
        return d
      end
    end
  end
  t.wait_for('the E0902 diagnostic', function()
    return race() ~= nil
  end)
  local d = race()
  local data = d.user_data and d.user_data.lsp and d.user_data.lsp.data
  if type(data) ~= 'table' or data.kernel == nil or type(data.thread) ~= 'table' then
    t.fail('the diagnostic carries no counterexample: ' .. vim.inspect(d))
  end

  -- :ArgusExplain on the diagnostic: its history, origin to violation.
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  vim.cmd('ArgusExplain')
  local commands = require('argus.commands')
  t.wait_for('the answer of argus.explain', function()
    return commands.last.explain ~= nil
  end)
  local steps = vim.fn.getqflist()
  if #steps < 2 or not steps[#steps].text:match('^violation') then
    t.fail('the quickfix list should end at the violation: ' .. vim.inspect(steps))
  end
  vim.cmd('cclose')
  vim.api.nvim_set_current_buf(buffer)

  -- The quick fix, as a user picks it from vim.lsp.buf.code_action's menu.
  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for i, item in ipairs(items) do
      local action = item[2] or item.action or item
      table.insert(offered, action.title)
      if action.title == 'Insert syncthreads()' then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  vim.lsp.buf.code_action()
  t.wait_for('the fix to be applied and the diagnostics to clear', function()
    return #vim.diagnostic.get(buffer) == 0
  end)
  local text = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, true), '\n')
  if not text:match('\n%s+syncthreads%(%)\n') then
    t.fail('no syncthreads() line after the fix (offered: ' .. vim.inspect(offered) .. ')')
  end

  -- :ArgusCompile emit-only writes the artifact (no nvcc needed).
  vim.cmd('ArgusCompile emit-only')
  t.wait_for('the answer of argus.compile', function()
    return commands.last.compile ~= nil
  end)
  local compiled = commands.last.compile
  if not compiled.ok or vim.fn.filereadable(compiled.artifact .. '/kernels.cu') ~= 1 then
    t.fail('no kernels.cu in the artifact: ' .. vim.inspect(compiled):sub(1, 2000))
  end

  vim.cmd('ArgusLayout tv(mma_m16n8k16_bf16, C)')
  t.wait_for('the answer of argus.layout', function()
    return commands.last.layout ~= nil
  end)
  if commands.last.layout.result ~= '((4,8),(2,2)):((32,1),(16,8))' then
    t.fail('argus.layout: ' .. vim.inspect(commands.last.layout))
  end
  -- Its picture is written to a file the split names.
  local picture = commands.last.picture
  if picture == nil or vim.fn.filereadable(picture) ~= 1
      or not table.concat(vim.fn.readfile(picture), '\n'):match('^<svg ') then
    t.fail('no SVG picture of the layout: ' .. vim.inspect(picture))
  end
  local shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  if not shown:find('picture: ' .. picture, 1, true) then
    t.fail('the layout split does not name the picture: ' .. shown)
  end
  vim.cmd('only')

  -- Tree-sitter: Argus's captures on an example with intrinsics.
  vim.cmd('edit ' .. vim.fn.fnameescape(source .. '/examples/gemm_mma_sm90.argus'))
  local example = vim.api.nvim_get_current_buf()
  if vim.treesitter.highlighter.active[example] == nil then
    t.fail('the tree-sitter highlighter is not active on an .argus buffer')
  end
  local tree = vim.treesitter.get_parser(example, 'argus'):parse()[1]
  local get_query = vim.treesitter.query.get or vim.treesitter.query.get_query
  local query = get_query('argus', 'highlights')
  local function captures_of(pattern)
    local lines = vim.api.nvim_buf_get_lines(example, 0, -1, true)
    for row, line in ipairs(lines) do
      local col = line:find(pattern)
      if col ~= nil then
        local names = {}
        for id, node in query:iter_captures(tree:root(), example, row - 1, row) do
          local r, c = node:start()
          if r == row - 1 and c == col - 1 then
            names[query.captures[id]] = true
          end
        end
        return names
      end
    end
    t.fail('no line matches ' .. pattern)
  end
  for pattern, capture in pairs({ ['thread_id%('] = 'function.builtin', ['nvvm%.'] = 'module.builtin',
    ['tag%('] = 'function.macro' }) do
    if not captures_of(pattern)[capture] then
      t.fail(pattern .. ' is not captured as @' .. capture .. ': ' .. vim.inspect(captures_of(pattern)))
    end
  end

  -- :checkhealth argus: no error.
  vim.cmd('checkhealth argus')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  if report:match('ERROR') or not report:match('OK') or not report:match('argus parser is installed') then
    t.fail(':checkhealth argus:\n' .. report)
  end
  client.stop()
  t.wait_for('argus lsp to stop', function()
    return client.is_stopped()
  end)
end)
