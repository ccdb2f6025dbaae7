-- Tree-sitter highlighting of .argus buffers with Argus's own queries
-- (grammar/queries/, linked into queries/argus/ here) over the Python
-- grammar, built as the language `argus` (parser/argus.so: see
-- editors/nvim/README.md). Without the parser the Vim syntax stays.
local M = {}

-- Whether the `argus` parser can be loaded.
function M.available()
  if vim.treesitter.language and vim.treesitter.language.add then -- 0.9+
    return pcall(vim.treesitter.language.add, 'argus')
  end
  return vim.treesitter.require_language('argus', nil, true) -- 0.7, 0.8
end

-- Starts the highlighter on a buffer; false when the parser is missing.
function M.start(buffer)
  if not M.available() then
    return false
  end
  if vim.treesitter.start then -- 0.8+: also turns the Vim syntax off
    return pcall(vim.treesitter.start, buffer, 'argus')
  end
  local ok, parser = pcall(vim.treesitter.get_parser, buffer, 'argus')
  if not ok then
    return false
  end
  vim.treesitter.highlighter.new(parser)
  vim.bo[buffer].syntax = ''
  return true
end

return M
