-- :checkhealth argus (called from autoload/health/argus.vim on every version).
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error

function M.check()
  start('argus')
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor))
  else
    error('Neovim 0.7 or newer is needed')
  end
  local argus = require('argus')
  local binary = argus.config.cmd[1]
  if vim.fn.executable(binary) == 1 then
    local version = vim.fn.system({ binary, '--version' })
    if vim.v.shell_error == 0 then
      ok('server: ' .. vim.fn.exepath(binary) .. ' (' .. vim.trim(version) .. ')')
    else
      error(binary .. ' --version failed: ' .. vim.trim(version))
    end
  else
    error(binary .. ' is not executable', {
      'build Argus: bash scripts/dev.sh demo (the binary is build/cli/argus)',
      'put it on PATH, or pass cmd = { "/path/to/argus", "lsp" } to require("argus").setup()',
    })
  end
  if vim.fn.exists('#filetypedetect#BufRead#*.argus') == 1 or vim.fn.exists('#BufRead#*.argus') == 1 then
    ok('.argus files are detected as filetype argus')
  else
    warn('.argus files are not detected: add editors/nvim to runtimepath before `filetype on`')
  end
  if vim.fn.exists(':ArgusCompile') == 2 then
    ok('commands: :ArgusCompile, :ArgusBenchmark, :ArgusExplain, :ArgusLayout')
  else
    warn('require("argus").setup() has not run: no client, no commands')
  end
  if require('argus.treesitter').available() then
    ok('tree-sitter: the argus parser is installed (highlighting from grammar/queries)')
  else
    warn('tree-sitter: no argus parser; the Vim syntax highlights instead', {
      'cmake --build build --target argus_nvim_parser, then add build/nvim to runtimepath',
    })
  end
end

return M
