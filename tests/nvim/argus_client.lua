-- Shared steps of the Neovim client tests: start `argus lsp` through Neovim's
-- own LSP client (the 0.7 API: vim.lsp.start_client / buf_attach_client), wait
-- for what the client received, and end Neovim with a status ctest can read.
--
-- Environment (set by tests/nvim/CMakeLists.txt):
--   ARGUS_BINARY      the argus executable
--   ARGUS_SOURCE_DIR  the repository root (for fixtures)
local M = {}

M.timeout_ms = 30000

-- Ends Neovim with status 1 after printing why; never returns.
function M.fail(message)
  io.stderr:write('FAIL: ' .. message .. '\n')
  vim.cmd('cquit 1')
end

function M.env(name)
  local value = os.getenv(name)
  if value == nil or value == '' then
    M.fail('environment variable ' .. name .. ' is not set')
  end
  return value
end

-- Copies a repository file into a fresh temporary folder, so the test never
-- edits the original; returns the copy's path.
function M.copy_fixture(relative)
  local source = M.env('ARGUS_SOURCE_DIR') .. '/' .. relative
  local lines = vim.fn.readfile(source, 'b')
  if #lines == 0 then
    M.fail('cannot read ' .. source)
  end
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local copy = dir .. '/' .. vim.fn.fnamemodify(source, ':t')
  if vim.fn.writefile(lines, copy, 'b') ~= 0 then
    M.fail('cannot write ' .. copy)
  end
  return copy
end

-- Waits until predicate() is true; fails with `what` after the timeout.
function M.wait_for(what, predicate)
  if not vim.wait(M.timeout_ms, predicate, 20) then
    M.fail('timed out after ' .. M.timeout_ms .. ' ms waiting for ' .. what)
  end
end

-- Opens `path` in the current window and attaches a new argus client to it.
-- Returns the buffer, the client and a table whose `exit_code` is set when
-- the server process ends.
function M.open_with_client(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buffer = vim.api.nvim_get_current_buf()
  vim.bo[buffer].filetype = 'argus'
  local server = { exit_code = nil }
  local client_id = vim.lsp.start_client({
    name = 'argus',
    cmd = { M.env('ARGUS_BINARY'), 'lsp', '--log-level=error' },
    root_dir = vim.fn.fnamemodify(path, ':h'),
    on_exit = function(code)
      server.exit_code = code
    end,
  })
  if client_id == nil then
    M.fail('vim.lsp.start_client did not start argus lsp')
  end
  if not vim.lsp.buf_attach_client(buffer, client_id) then
    M.fail('vim.lsp.buf_attach_client failed')
  end
  local client = vim.lsp.get_client_by_id(client_id)
  M.wait_for('the initialize answer', function()
    return client.initialized or server.exit_code ~= nil
  end)
  if server.exit_code ~= nil then
    M.fail('argus lsp exited with status ' .. server.exit_code .. ' during initialize')
  end
  return buffer, client, server
end

-- Sends a request through the client and returns its result; fails on an
-- error answer or a timeout.
function M.request(client, buffer, method, params)
  local answer, reason = client.request_sync(method, params, M.timeout_ms, buffer)
  if answer == nil then
    M.fail(method .. ': no answer (' .. tostring(reason) .. ')')
  end
  if answer.err ~= nil then
    M.fail(method .. ': error ' .. vim.inspect(answer.err))
  end
  return answer.result
end

-- Stops the client (shutdown + exit) and checks that the server exits with 0.
function M.stop(client, server)
  client.stop()
  M.wait_for('argus lsp to exit after shutdown', function()
    return server.exit_code ~= nil
  end)
  if server.exit_code ~= 0 then
    M.fail('argus lsp exited with status ' .. server.exit_code .. ' after shutdown')
  end
end

function M.describe(diagnostics)
  local parts = {}
  for _, d in ipairs(diagnostics) do
    table.insert(parts, string.format('%s at %d:%d %s', tostring(d.code), d.lnum + 1, d.col + 1,
      d.message))
  end
  return '[' .. table.concat(parts, '; ') .. ']'
end

-- Runs `body` and quits with 0, or with 1 and the error on any Lua error.
function M.run(body)
  local ok, error = xpcall(body, debug.traceback)
  if not ok then
    M.fail(tostring(error))
  end
  io.stdout:write('PASS\n')
  vim.cmd('qall!')
end

return M
