-- :ArgusCompile, :ArgusBenchmark, :ArgusExplain and :ArgusLayout: the language
-- server's commands (workspace/executeCommand) on the current buffer. Each
-- keeps its last answer in M.last[name] (for scripts and tests).
local M = { last = {} }

local function notify(message, level)
  vim.notify('argus: ' .. message, level or vim.log.levels.INFO)
end

-- A scratch buffer in a split below, holding `lines`.
local function show(title, lines)
  vim.cmd('botright new')
  local buffer = vim.api.nvim_get_current_buf()
  vim.bo[buffer].buftype = 'nofile'
  vim.bo[buffer].bufhidden = 'wipe'
  vim.bo[buffer].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buffer, title)
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  vim.bo[buffer].modifiable = false
  return buffer
end

-- Sends argus.NAME with `arguments` for the current buffer's client; calls
-- done(result) on success.
local function execute(name, arguments, done)
  local buffer = vim.api.nvim_get_current_buf()
  local client = require('argus').client(buffer)
  if client == nil then
    notify('no argus language server for this buffer (is it a .argus file? see :checkhealth argus)',
      vim.log.levels.ERROR)
    return
  end
  client.request('workspace/executeCommand', { command = 'argus.' .. name, arguments = { arguments } },
    function(err, result)
      if err ~= nil then
        M.last[name] = { error = err }
        notify(name .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      M.last[name] = result
      done(result)
    end, buffer)
end

local function uri()
  return vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
end

-- :ArgusCompile [sm90a|gfx942] [emit-only]
function M.compile(words)
  local arguments = { uri = uri() }
  for _, word in ipairs(words) do
    if word == 'emit-only' then
      arguments.emitOnly = true
    else
      arguments.target = word
    end
  end
  execute('compile', arguments, function(result)
    if result.ok then
      notify('compiled ' .. (result.file or '') .. ' into ' .. tostring(result.artifact))
    else
      notify('compile ' .. tostring(result.status) .. ': ' .. tostring(result.error or ''),
        vim.log.levels.WARN)
    end
  end)
end

-- :ArgusBenchmark [RUNNER-ARGS...]: the results as a table in a split.
function M.benchmark(words)
  notify('benchmarking (compile, then the runner)...')
  execute('benchmark', { uri = uri(), args = words }, function(result)
    local lines = { 'command: ' .. tostring(result.command) }
    if not result.ok then
      table.insert(lines, 'failed at ' .. tostring(result.stage) .. ': ' .. tostring(result.error))
    end
    table.insert(lines, string.format('%-28s %-12s %10s %10s %8s', 'kernel', 'sizes', 'median ms',
      'TFLOP/s', 'correct'))
    for _, r in ipairs(result.results or {}) do
      local sizes = {}
      for k, v in pairs(r.sizes or {}) do
        table.insert(sizes, k .. '=' .. tostring(v))
      end
      table.sort(sizes)
      table.insert(lines, string.format('%-28s %-12s %10s %10s %8s', tostring(r.kernel),
        table.concat(sizes, ','), tostring(r.median_ms or r.time_ms or ''), tostring(r.tflops or ''),
        tostring(r.correct)))
    end
    show('argus benchmark', lines)
  end)
end

-- The checker diagnostic (E09xx/W09xx) under the cursor, or on its line.
local function diagnostic_here()
  local buffer = vim.api.nvim_get_current_buf()
  local line, col = unpack(vim.api.nvim_win_get_cursor(0))
  local best = nil
  for _, d in ipairs(vim.diagnostic.get(buffer, { lnum = line - 1 })) do
    if type(d.code) == 'string' and d.code:match('^[EW]09') then
      if best == nil or (d.col <= col and col <= d.end_col) then
        best = d
      end
    end
  end
  return best
end

-- :ArgusExplain: the history of the element under the cursor's violation, as
-- a quickfix list (one entry per step, from its origin to the violation).
function M.explain()
  local d = diagnostic_here()
  if d == nil then
    notify('no checker diagnostic (E09xx) on this line', vim.log.levels.WARN)
    return
  end
  local path = vim.api.nvim_buf_get_name(0)
  execute('explain', { uri = uri(), line = d.lnum, code = d.code, character = d.col }, function(result)
    local items = {}
    for _, step in ipairs(result.history or {}) do
      local at = step.program_point or {}
      local what = { step.action }
      for _, key in ipairs({ 'tensor', 'space', 'tag', 'note' }) do
        if step[key] ~= nil and step[key] ~= vim.NIL then
          table.insert(what, key .. '=' .. (type(step[key]) == 'table' and vim.fn.json_encode(step[key])
            or tostring(step[key])))
        end
      end
      table.insert(items, { filename = path, lnum = (at.line or 0) + 1, col = (at.character or 0) + 1,
        text = table.concat(what, ' ') })
    end
    if #items == 0 then
      table.insert(items, { filename = path, lnum = d.lnum + 1, col = d.col + 1,
        text = (result.message or d.message) .. ' (no history: the counterexample did not replay)' })
    end
    vim.fn.setqflist({}, ' ', { title = 'argus explain ' .. d.code .. ': ' .. d.message, items = items })
    vim.cmd('copen')
  end)
end

-- :ArgusLayout EXPR: the value, its index grid when it has one, and its
-- picture (argus layout --svg) written to a file whose path the split shows;
-- :ArgusLayout! EXPR also opens the picture (vim.ui.open, Neovim 0.10+).
function M.layout(expr, open)
  if expr == '' then
    notify('usage: :ArgusLayout EXPR, e.g. :ArgusLayout tv(mma_m16n8k16_bf16, C)', vim.log.levels.WARN)
    return
  end
  execute('layout', { expr = expr, table = true, svg = true }, function(result)
    if result.error then
      notify(expr .. ': ' .. tostring(result.error.message), vim.log.levels.ERROR)
      return
    end
    local lines = { expr .. ' = ' .. tostring(result.result) }
    for _, row in ipairs(result.table or {}) do
      local cells = {}
      for _, v in ipairs(row) do
        table.insert(cells, string.format('%4d', v))
      end
      table.insert(lines, table.concat(cells, ' '))
    end
    if type(result.svg) == 'string' then
      local picture = vim.fn.tempname() .. '.svg'
      vim.fn.writefile(vim.split(result.svg, '\n', { plain = true }), picture)
      M.last.picture = picture
      table.insert(lines, 'picture: ' .. picture)
      if open then
        if vim.ui.open then
          vim.ui.open(picture)
        else
          notify('this Neovim cannot open files (vim.ui.open is 0.10+): ' .. picture, vim.log.levels.WARN)
        end
      end
    elseif result.svgError then
      table.insert(lines, 'no picture: ' .. tostring(result.svgError))
    end
    show('argus layout', lines)
  end)
end

function M.register()
  local function words(opts)
    return vim.split(opts.args, '%s+', { trimempty = true })
  end
  vim.api.nvim_create_user_command('ArgusCompile', function(opts)
    M.compile(words(opts))
  end, { nargs = '*', complete = function()
    return { 'sm90a', 'gfx942', 'emit-only' }
  end, desc = 'Compile the kernels of this buffer (argus.compile)' })
  vim.api.nvim_create_user_command('ArgusBenchmark', function(opts)
    M.benchmark(words(opts))
  end, { nargs = '*', desc = 'Benchmark the kernels of this buffer on a GPU (argus.benchmark)' })
  vim.api.nvim_create_user_command('ArgusExplain', function()
    M.explain()
  end, { desc = 'The counterexample under the cursor, step by step, in the quickfix list' })
  vim.api.nvim_create_user_command('ArgusLayout', function(opts)
    M.layout(opts.args, opts.bang)
  end, { nargs = '+', bang = true, desc = 'Evaluate a layout expression and draw it (argus.layout)' })
end

return M
