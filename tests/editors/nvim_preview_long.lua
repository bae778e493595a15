-- :PiLspPreview on a conversation longer than the server renders whole: the items far from
-- the end come as stubs; following onto a stub (from the session, then from the preview)
-- renders the part around it. Records JSON.
-- Usage: nvim --headless --clean --cmd 'set rtp^=editors/neovim' -l nvim_preview_long.lua SPEC.json OUT.json
-- SPEC: { session, server_cmd, first_line, first_mark, last_line, last_mark, timeout_ms }
local spec = vim.json.decode(table.concat(vim.fn.readfile(arg[1]), '\n'))
local out_path = arg[2]
local timeout = spec.timeout_ms or 20000
local R = { errors = {} }

local function wait(what, cond)
  assert(vim.wait(timeout, cond, 50), 'timed out waiting for ' .. what)
end

local function has(buf, text)
  for _, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(text, 1, true) then
      return true
    end
  end
  return false
end

local function move(win, row)
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { row, 0 })
  vim.api.nvim_exec_autocmds('CursorMoved', { buffer = vim.api.nvim_win_get_buf(win) })
end

local function main()
  vim.lsp.config('pi_lsp', { cmd = spec.server_cmd })
  vim.lsp.enable('pi_lsp')
  vim.cmd.edit(vim.fn.fnameescape(spec.session))
  local src = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  wait('the client to attach', function()
    local client = vim.lsp.get_clients({ bufnr = src, name = 'pi_lsp' })[1]
    return client ~= nil and client.initialized
  end)
  vim.cmd('PiLspPreview')
  local pw, pbuf
  wait(':PiLspPreview to open its split', function()
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.api.nvim_buf_get_name(b):match('^pi%-preview://') and vim.api.nvim_buf_line_count(b) > 1 then
        pw, pbuf = w, b
      end
    end
    return pw ~= nil
  end)
  R.first_whole_at_start = has(pbuf, spec.first_mark)
  R.last_whole_at_start = has(pbuf, spec.last_mark)

  -- the session's cursor on the first question (a stub): that part comes whole
  move(src_win, spec.first_line + 1)
  wait('the first question rendered whole', function()
    return has(pbuf, spec.first_mark)
  end)
  R.first_whole_after_follow = true
  R.preview_cursor_line_text = vim.api.nvim_buf_get_lines(pbuf, vim.api.nvim_win_get_cursor(pw)[1] - 1, -1, false)[1]
  R.last_whole_after_follow = has(pbuf, spec.last_mark)

  -- the preview's cursor on the last question's heading (a stub now): that part comes whole,
  -- the preview's cursor stays on that item and the session's goes to its line
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(pbuf, 0, -1, false)) do
    if (l .. ' '):find('line ' .. (spec.last_line + 1) .. ' ', 1, true) and l:match('^## ') then
      row = i
    end
  end
  if not row then
    R.tail = vim.api.nvim_buf_get_lines(pbuf, -6, -1, false)
  end
  assert(row, 'no heading of the last question')
  move(pw, row)
  wait('the last question rendered whole', function()
    return has(pbuf, spec.last_mark)
  end)
  R.last_whole_after_preview_move = true
  R.preview_cursor_after = vim.api.nvim_buf_get_lines(pbuf, vim.api.nvim_win_get_cursor(pw)[1] - 1, -1, false)[1]
  R.source_row_after = vim.api.nvim_win_get_cursor(src_win)[1] - 1
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  R.errors[#R.errors + 1] = tostring(err)
end
vim.fn.writefile({ vim.json.encode(R) }, out_path)
vim.cmd('qa!')
