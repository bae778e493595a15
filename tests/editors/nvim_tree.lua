-- :PiLspTree on a branched session: records the lines the location list window shows and
-- where <CR> on a chosen row jumps. Records JSON.
-- Usage: nvim --headless --clean --cmd 'set rtp^=editors/neovim' -l nvim_tree.lua SPEC.json OUT.json
-- SPEC: { session, server_cmd, jump_row (1-based row of the list), timeout_ms }
local spec = vim.json.decode(table.concat(vim.fn.readfile(arg[1]), '\n'))
local out_path = arg[2]
local timeout = spec.timeout_ms or 20000
local R = { errors = {} }

local function main()
  vim.lsp.config('pi_lsp', { cmd = spec.server_cmd })
  vim.lsp.enable('pi_lsp')
  vim.cmd.edit(vim.fn.fnameescape(spec.session))
  local buf = vim.api.nvim_get_current_buf()
  local main_win = vim.api.nvim_get_current_win()
  assert(vim.wait(timeout, function()
    local client = vim.lsp.get_clients({ bufnr = buf, name = 'pi_lsp' })[1]
    return client ~= nil and client.initialized
  end, 50), 'the client did not attach')
  vim.cmd('PiLspTree')
  local list
  assert(vim.wait(timeout, function()
    list = vim.fn.getloclist(main_win, { title = 1, winid = 1, size = 1 })
    return list.winid ~= 0 and list.size > 0
  end, 50), ':PiLspTree opened no location list')
  R.title = list.title
  R.window_lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(list.winid), 0, -1, false)
  -- <CR> on a row of the list window jumps to that entry's line in the session
  vim.api.nvim_set_current_win(list.winid)
  vim.api.nvim_win_set_cursor(list.winid, { spec.jump_row, 0 })
  vim.cmd.execute([["normal \<CR>"]])
  R.jump_buf_same = vim.api.nvim_get_current_buf() == buf
  R.jump_line = vim.api.nvim_win_get_cursor(0)[1]
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  R.errors[#R.errors + 1] = tostring(err)
end
vim.fn.writefile({ vim.json.encode(R) }, out_path)
vim.cmd('qa!')
