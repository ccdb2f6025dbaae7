-- Real-client test: Neovim asks argus lsp for hover at positions its own
-- helpers compute from the cursor (make_position_params with the client's
-- offset encoding) and gets markdown for names, nothing for a comment.
local dir = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h')
local t = dofile(dir .. '/argus_client.lua')

-- The zero-based line and byte column of the first match of `pattern`
-- (a Lua pattern with one empty capture `()` before the name).
local function find(buffer, pattern)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buffer, 0, -1, true)) do
    local col = line:match(pattern)
    if col then
      return i - 1, col - 1
    end
  end
  t.fail('no line matches ' .. pattern)
end

local function hover_at(client, buffer, line, col)
  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  return t.request(client, buffer, 'textDocument/hover', params)
end

local function expect_markdown(result, what, needles)
  if type(result) ~= 'table' or type(result.contents) ~= 'table' or
      result.contents.kind ~= 'markdown' then
    t.fail('hover of ' .. what .. ': expected MarkupContent markdown, got ' .. vim.inspect(result))
  end
  for _, needle in ipairs(needles) do
    if not result.contents.value:find(needle, 1, true) then
      t.fail('hover of ' .. what .. ' lacks "' .. needle .. '": ' .. result.contents.value)
    end
  end
  -- The client turns it into the lines of its hover window.
  local lines = vim.lsp.util.convert_input_to_markdown_lines(result.contents)
  if #vim.lsp.util.trim_empty_lines(lines) == 0 then
    t.fail('hover of ' .. what .. ' gives no lines in the client')
  end
end

t.run(function()
  local path = t.copy_fixture('examples/softmax.argus')
  local buffer, client, server = t.open_with_client(path)

  -- A call of a @device function: its signature and docstring.
  local line, col = find(buffer, '= ()group_max%(')
  local result = hover_at(client, buffer, line, col + 2)
  expect_markdown(result, 'group_max', { 'group_max', 'Maximum of x over the 32 threads' })
  if result.range == nil or result.range.start.line ~= line or result.range.start.character ~= col or
      result.range['end'].character ~= col + #'group_max' then
    t.fail('hover range of group_max: ' .. vim.inspect(result.range))
  end

  -- A module constant: its value.
  line, col = find(buffer, 'block=()THREADS%)')
  expect_markdown(hover_at(client, buffer, line, col), 'THREADS', { 'THREADS', '256' })

  -- Inside a comment: no hover.
  line, col = find(buffer, '^# ()examples/softmax')
  result = hover_at(client, buffer, line, col)
  if result ~= nil and result ~= vim.NIL then
    t.fail('hover in a comment should be null, got ' .. vim.inspect(result))
  end
  t.stop(client, server)
end)
