local M = {}

local SESSION_PATH = '.*/%.pi/agent/sessions/.+%.jsonl$'

--- True when `line` is a session header line of pi ("session") or of the "session_header" dialect.
---@param line string?
---@return boolean
function M.is_header(line)
  if not line or not line:find('^%s*{') then
    return false
  end
  if #line > 65536 then
    -- A header is small; a huge first line is not one. Avoid decoding it.
    return false
  end
  local ok, obj = pcall(vim.json.decode, line)
  if not ok or type(obj) ~= 'table' then
    -- A header with a syntax error later in the line is still meant to be a header.
    return line:find('^%s*{%s*"type"%s*:%s*"session"') ~= nil
      or line:find('^%s*{%s*"type"%s*:%s*"session_header"') ~= nil
  end
  return obj.type == 'session' or obj.type == 'session_header'
end

--- The filetype for a .jsonl path/buffer.
---@param path string
---@param bufnr integer?
---@return string
function M.detect(path, bufnr)
  local p = vim.fs.normalize(path)
  if p:match(SESSION_PATH) then
    return 'jsonl.pisession'
  end
  local first
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    first = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1]
  else
    -- vim.filetype.match({ filename = ... }) without a buffer: peek at the file itself.
    local f = io.open(path, 'rb')
    if f then
      first = (f:read(65537) or ''):match('^[^\r\n]*')
      f:close()
    end
  end
  if M.is_header(first) then
    return 'jsonl.pisession'
  end
  return 'jsonl'
end

function M.setup()
  if vim.g.loaded_pi_lsp_filetype then
    return
  end
  vim.g.loaded_pi_lsp_filetype = true
  vim.filetype.add({
    extension = {
      jsonl = function(path, bufnr)
        return M.detect(path, bufnr)
      end,
    },
    pattern = {
      -- Also when the path matches but another rule would claim the extension first.
      [SESSION_PATH] = { 'jsonl.pisession', { priority = 10 } },
    },
  })
end

return M
