-- Real-client test: Neovim opens a copy of a kernel with a missing barrier,
-- receives the checker's E0902 through its own diagnostics, asks for code
-- actions, applies the verified quick fix argus.fix.insert-barrier with its
-- own workspace-edit code (which sends the didChange), and sees the
-- diagnostic go away; the buffer then holds the inserted barrier line.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(dir .. '/argus_client.lua')

t.run(function()
  local path = t.copy_fixture('tests/checker/corpus/missing_barrier_after_copy.argus')
  local buffer, client, server = t.open_with_client(path)
  local before = vim.api.nvim_buf_get_lines(buffer, 0, -1, true)

  local function races()
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      if d.code == 'E0902' then
        table.insert(found, d)
      end
    end
    return found
  end
  t.wait_for('the E0902 diagnostic', function()
    return #races() > 0
  end)
  local race = races()[1]
  if race.severity ~= vim.diagnostic.severity.ERROR or race.source ~= 'argus' then
    t.fail('unexpected diagnostic ' .. vim.inspect(race))
  end

  -- The code actions at the diagnostic, asked for as vim.lsp.buf.code_action
  -- does: the cursor's range and the line's diagnostics in LSP form.
  vim.api.nvim_win_set_cursor(0, { race.lnum + 1, race.col })
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buffer, race.lnum) }
  local actions = t.request(client, buffer, 'textDocument/codeAction', params)
  local fix = nil
  for _, action in ipairs(actions or {}) do
    local d = action.diagnostics and action.diagnostics[1]
    if action.kind == 'quickfix' and action.edit and d and d.code == 'E0902' and d.data and
        vim.tbl_contains(d.data.fixes or {}, 'argus.fix.insert-barrier') then
      fix = action
    end
  end
  if fix == nil then
    t.fail('no argus.fix.insert-barrier quick fix among ' .. vim.inspect(actions))
  end
  local edits = fix.edit.changes[vim.uri_from_bufnr(buffer)]
  if edits == nil or #edits ~= 1 then
    t.fail('the fix should be one edit of this document: ' .. vim.inspect(fix.edit))
  end

  local version = vim.lsp.util.buf_versions[buffer]
  vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
  if vim.lsp.util.buf_versions[buffer] == version then
    t.fail('applying the fix did not change the buffer')
  end
  -- The client sends didChange (after its debounce); the server re-checks.
  t.wait_for('the diagnostics to clear after the fix', function()
    return #vim.diagnostic.get(buffer) == 0
  end)

  -- The barrier line sits where the edit put it, indented like the line it
  -- now precedes; every other line is unchanged.
  local after = vim.api.nvim_buf_get_lines(buffer, 0, -1, true)
  local at = edits[1].range.start.line + 1 -- one-based
  local indent = before[at]:match('^(%s*)')
  if #after ~= #before + 1 or after[at] ~= indent .. 'syncthreads()' then
    t.fail('expected "' .. indent .. 'syncthreads()" at line ' .. at .. ', got "' ..
      tostring(after[at]) .. '" (' .. #before .. ' -> ' .. #after .. ' lines)')
  end
  for i = 1, #before do
    local j = i < at and i or i + 1
    if after[j] ~= before[i] then
      t.fail('line ' .. i .. ' changed: "' .. before[i] .. '" -> "' .. tostring(after[j]) .. '"')
    end
  end
  -- Still no diagnostics after a pull of the same text: the server's copy
  -- matches the buffer.
  local pulled = t.request(client, buffer, 'textDocument/diagnostic',
    { textDocument = { uri = vim.uri_from_bufnr(buffer) } })
  if pulled.kind ~= 'full' or #pulled.items ~= 0 then
    t.fail('pulled diagnostics after the fix: ' .. vim.inspect(pulled))
  end
  t.stop(client, server)
end)
