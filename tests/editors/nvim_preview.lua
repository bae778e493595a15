-- :PiLspPreview on a session: records the preview buffer (lines, options, folds), the server's
-- own markdown for the same leaf, the cursor following both ways, gd, a live re-render after
-- an edit, and another leaf. Records JSON.
-- Usage: nvim --headless --clean --cmd 'set rtp^=editors/neovim' -l nvim_preview.lua SPEC.json OUT.json
-- SPEC: { session, server_cmd, follow_line, preview_item_line, gd_item_line, append (a JSON
--         line), appended_text, other_leaf, other_text, timeout_ms }
local spec = vim.json.decode(table.concat(vim.fn.readfile(arg[1]), '\n'))
local out_path = arg[2]
local timeout = spec.timeout_ms or 20000
local R = { errors = {} }

local function wait(what, cond)
  assert(vim.wait(timeout, cond, 50), 'timed out waiting for ' .. what)
end

--- The preview buffer shown beside the session (its name starts with pi-preview://).
local function preview_win()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):match('^pi%-preview://') then
      return w
    end
  end
  return nil
end

local function lines_of(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function has_line(buf, text)
  for _, l in ipairs(lines_of(buf)) do
    if l:find(text, 1, true) then
      return true
    end
  end
  return false
end

--- Put the cursor of `win` on a 1-based row and run the CursorMoved autocommands there (what
--- Neovim does after a cursor motion when it waits for the next key).
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
  local client
  wait('the client to attach', function()
    client = vim.lsp.get_clients({ bufnr = src, name = 'pi_lsp' })[1]
    return client ~= nil and client.initialized
  end)

  -- the server's own answer for the same leaf, to compare the buffer with
  local answer = client:request_sync('workspace/executeCommand', {
    command = 'pi-lsp.preview',
    arguments = { vim.uri_from_bufnr(src), { leaf = vim.NIL, format = 'markdown' } },
  }, timeout, src)
  assert(answer and answer.result, 'pi-lsp.preview gave no result: ' .. vim.inspect(answer))
  R.server_markdown = answer.result.markdown
  R.server_items = answer.result.items

  vim.cmd('PiLspPreview')
  local pw
  wait(':PiLspPreview to open its split', function()
    pw = preview_win()
    return pw ~= nil and vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(pw)) > 1
  end)
  local pbuf = vim.api.nvim_win_get_buf(pw)
  R.focus_stays = vim.api.nvim_get_current_win() == src_win
  R.lines = lines_of(pbuf)
  R.filetype = vim.bo[pbuf].filetype
  R.buftype = vim.bo[pbuf].buftype
  R.modifiable = vim.bo[pbuf].modifiable
  R.foldmethod = vim.wo[pw].foldmethod
  R.fold_levels = vim.api.nvim_win_call(pw, function()
    local out = {}
    for i = 1, vim.api.nvim_buf_line_count(pbuf) do
      out[i] = vim.fn.foldlevel(i)
    end
    return out
  end)
  R.closed_folds = vim.api.nvim_win_call(pw, function()
    local out = {}
    for i = 1, vim.api.nvim_buf_line_count(pbuf) do
      if vim.fn.foldclosed(i) == i then
        out[#out + 1] = i - 1
      end
    end
    return out
  end)

  -- the session's cursor moves: the preview's cursor goes to the item at or above it
  move(src_win, spec.follow_line + 1)
  R.preview_row_after_source_move = vim.api.nvim_win_get_cursor(pw)[1] - 1
  -- the preview's cursor moves (inside an item): the session's cursor goes to its line
  local item
  for _, it in ipairs(R.server_items) do
    if it.line == spec.preview_item_line then
      item = it
    end
  end
  move(pw, item.previewLine + 2)
  R.source_row_after_preview_move = vim.api.nvim_win_get_cursor(src_win)[1] - 1
  R.preview_row_kept = vim.api.nvim_win_get_cursor(pw)[1] - 1

  -- gd on another item: the session window, on the item's line
  for _, it in ipairs(R.server_items) do
    if it.line == spec.gd_item_line then
      item = it
    end
  end
  vim.api.nvim_set_current_win(pw)
  vim.api.nvim_win_set_cursor(pw, { item.previewLine + 1, 0 })
  vim.cmd.normal('gd')
  R.gd_win_is_source = vim.api.nvim_get_current_win() == src_win
  R.gd_row = vim.api.nvim_win_get_cursor(0)[1] - 1

  -- an edit in the session (a line appended, as pi appends): the preview renders it
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_buf_set_lines(src, -1, -1, false, { spec.append })
  vim.api.nvim_exec_autocmds('TextChanged', { buffer = src })
  wait('the appended message in the preview', function()
    return has_line(pbuf, spec.appended_text)
  end)
  R.appended_shown = true

  -- another leaf, then back to the one pi resumes
  vim.cmd('PiLspPreview ' .. spec.other_leaf)
  wait('the other leaf in the preview', function()
    return vim.b[pbuf].pi_lsp_leaf == spec.other_leaf
  end)
  R.other_leaf_lines = lines_of(pbuf)
  vim.cmd('PiLspPreview!')
  wait('the resumed leaf again', function()
    return vim.b[pbuf].pi_lsp_leaf ~= spec.other_leaf
  end)
  R.back_lines = lines_of(pbuf)
  R.windows = #vim.api.nvim_tabpage_list_wins(0)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  R.errors[#R.errors + 1] = tostring(err)
end
vim.fn.writefile({ vim.json.encode(R) }, out_path)
vim.cmd('qa!')
