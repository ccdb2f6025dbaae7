-- Argus for Neovim: `argus lsp` for .argus buffers, the commands of the
-- language server, and highlighting (tree-sitter when the Python parser is
-- there, Vim syntax otherwise). Neovim 0.7 or newer.
--
--   require('argus').setup({
--     cmd = { 'argus', 'lsp' },          -- the server; add '--allow-runner=GLOB' to allow a runner
--     settings = { checker = { timeLimitMs = 30000 } },  -- sent as initializationOptions
--   })
--
-- The command and the runner template come from this call (your own config),
-- never from a project's files: a cloned repository cannot choose what runs.
local M = {}

local defaults = {
  cmd = { 'argus', 'lsp' },
  settings = {},
  treesitter = true, -- highlight with tree-sitter when the parser is installed
}

M.config = vim.deepcopy(defaults)

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

-- The folder to start the server for: the nearest one with a .git, else the file's.
local function root_of(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local found = vim.fn.finddir('.git', dir .. ';')
  if found ~= '' then
    return vim.fn.fnamemodify(found, ':p:h:h')
  end
  return dir
end

local function client_config(buffer)
  local path = vim.api.nvim_buf_get_name(buffer)
  return {
    name = 'argus',
    cmd = M.config.cmd,
    root_dir = root_of(path),
    init_options = M.config.settings,
    settings = { argus = M.config.settings },
    -- workspace/configuration: the server asks for the `argus` section.
    handlers = {
      ['workspace/configuration'] = function(_, params)
        local out = {}
        for _, item in ipairs(params.items or {}) do
          table.insert(out, item.section == 'argus' and M.config.settings or vim.NIL)
        end
        return out
      end,
    },
  }
end

local clients = {} -- root -> client id (Neovim 0.7, which has no vim.lsp.start)

-- Starts (or reuses) the client for a buffer and attaches it.
function M.attach(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  if vim.fn.executable(M.config.cmd[1]) ~= 1 then
    vim.notify('argus: ' .. M.config.cmd[1] .. ' is not executable; build Argus (bash scripts/dev.sh demo) '
      .. 'and put build/cli/argus on PATH, or pass cmd = { "/path/to/argus", "lsp" } to setup()',
      vim.log.levels.ERROR)
    return nil
  end
  local config = client_config(buffer)
  if vim.lsp.start then -- 0.8+
    return vim.lsp.start(config, { bufnr = buffer })
  end
  local id = clients[config.root_dir]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    clients[config.root_dir] = id
  end
  if id ~= nil then
    vim.lsp.buf_attach_client(buffer, id)
  end
  return id
end

-- The argus client of a buffer, or nil.
function M.client(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local attached = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buffer })
    or vim.lsp.buf_get_clients(buffer)
  for _, client in pairs(attached) do
    if client.name == 'argus' then
      return client
    end
  end
  return nil
end

function M.setup(options)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), options or {})
  require('argus.commands').register()
  local group = vim.api.nvim_create_augroup('argus', { clear = true })
  if has('0.11') and vim.lsp.config and vim.lsp.enable then
    -- 0.11+: the built-in registry starts and attaches the client itself.
    local config = client_config(0)
    config.root_dir = nil
    config.root_markers = { '.git' }
    config.filetypes = { 'argus' }
    vim.lsp.config('argus', config)
    vim.lsp.enable('argus')
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = 'argus',
      callback = function(args)
        M.attach(args.buf)
      end,
    })
  end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'argus',
    callback = function(args)
      if M.config.treesitter then
        require('argus.treesitter').start(args.buf)
      end
    end,
  })
  -- Buffers already open when setup() runs.
  for _, buffer in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buffer) and vim.bo[buffer].filetype == 'argus' then
      if not (has('0.11') and vim.lsp.enable) then
        M.attach(buffer)
      end
      if M.config.treesitter then
        require('argus.treesitter').start(buffer)
      end
    end
  end
end

return M
