-- :PiLspPreview — the conversation of a pi session as the server renders it (pi-lsp.preview,
-- format markdown) in a read-only split beside the session: one fold per item (and its
-- <details> sections folded inside), the cursor following both ways, `gd` on an item jumps to
-- its line, re-rendered when the session changes. A long conversation comes whole around one
-- line, the rest as stubs (one heading each): following onto a stub renders the part around
-- it. Used by plugin/pi_lsp.lua.
local M = {}

local REFRESH_MS = 300

--- Per session buffer: { buf = preview buffer, items = {...}, leaf = chosen leaf or nil,
--- around = line rendered whole around or nil (the end), keep = item line to put the preview's
--- cursor on after the next render, folds = fold level per preview line, gen = refresh generation }.
---@type table<integer, table>
local state = {}
--- Preview buffer -> its session buffer.
---@type table<integer, integer>
local source_of = {}

--- A window of the current tab page showing `buf`, if any.
local function win_of(buf)
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
  return nil
end

--- The item whose entry is the nearest at or above a 0-based line of the session file.
---@param items {line: integer, previewLine: integer}[]
function M.item_at_line(items, line)
  local best
  for _, it in ipairs(items) do
    if it.line <= line and (not best or it.line > best.line) then
      best = it
    end
  end
  return best
end

--- The item a 0-based line of the preview belongs to (the last one starting at or above it).
---@param items {line: integer, previewLine: integer}[]
function M.item_at_preview_line(items, row)
  local best
  for _, it in ipairs(items) do
    if it.previewLine >= 0 and it.previewLine <= row and (not best or it.previewLine >= best.previewLine) then
      best = it
    end
  end
  return best
end

--- Fold levels ('foldexpr' values) of the preview's lines: '>1' where an item starts, one
--- more level for each <details> section inside it.
---@param lines string[]
---@param items {previewLine: integer}[]
---@return string[]
function M.fold_levels(lines, items)
  local starts = {}
  for _, it in ipairs(items) do
    if it.previewLine >= 0 then
      starts[it.previewLine + 1] = true
    end
  end
  local out, in_item, depth = {}, false, 0
  for i, text in ipairs(lines) do
    if starts[i] then
      in_item, depth = true, 0
      out[i] = '>1'
    elseif not in_item then
      out[i] = '0'
    elseif text:match('^%s*<details') then
      depth = depth + 1
      out[i] = '>' .. (depth + 1)
    elseif text:match('^%s*</details>') and depth > 0 then
      out[i] = '<' .. (depth + 1)
      depth = depth - 1
    else
      out[i] = tostring(depth + 1)
    end
  end
  return out
end

--- 'foldexpr' of a preview window (evaluated with its buffer current).
function M.foldexpr(lnum)
  local st = state[source_of[vim.api.nvim_get_current_buf()] or -1]
  return st and st.folds and st.folds[lnum] or '0'
end

--- 'foldtext' of a preview window: a <details> section by its summary, an item by its line.
function M.foldtext()
  local first = vim.fn.getline(vim.v.foldstart)
  local summary = first:match('<summary>(.-)</summary>')
  local count = vim.v.foldend - vim.v.foldstart + 1
  return ('▸ %s  (%d lines folded)'):format(summary or first, count)
end

--- Move the preview's cursor to the item at or above the session window's cursor.
function M.follow_source(src)
  local st = state[src]
  local pw = st and win_of(st.buf)
  local sw = win_of(src)
  if not pw or not sw then
    return
  end
  local it = M.item_at_line(st.items, vim.api.nvim_win_get_cursor(sw)[1] - 1)
  if it and it.rendered == false and st.around ~= it.line then
    st.around = it.line -- a stub: render the part around it, then follow
    M.refresh(src)
  end
  if it and it ~= M.item_at_preview_line(st.items, vim.api.nvim_win_get_cursor(pw)[1] - 1) then
    vim.api.nvim_win_set_cursor(pw, { it.previewLine + 1, 0 })
    vim.api.nvim_win_call(pw, function()
      vim.cmd('normal! zt') -- the item at the top of the split
    end)
  end
end

--- Move the session window's cursor to the line of the item under the preview's cursor.
function M.follow_preview(buf)
  local src = source_of[buf]
  local st = src and state[src]
  local pw, sw = win_of(buf), src and win_of(src)
  if not st or not pw or not sw then
    return
  end
  local it = M.item_at_preview_line(st.items, vim.api.nvim_win_get_cursor(pw)[1] - 1)
  if it and it.rendered == false and st.around ~= it.line then
    st.around, st.keep = it.line, it.line -- a stub: render the part around it
    M.refresh_soon(src)
  end
  if it and it ~= M.item_at_line(st.items, vim.api.nvim_win_get_cursor(sw)[1] - 1) then
    vim.api.nvim_win_set_cursor(sw, { it.line + 1, 0 })
  end
end

--- `gd` in the preview: to the session's line of the item under the cursor.
function M.goto_item(buf)
  local src = source_of[buf]
  local st = src and state[src]
  if not st then
    return
  end
  local it = M.item_at_preview_line(st.items, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not it then
    vim.notify('pi-lsp: no item here', vim.log.levels.WARN)
    return
  end
  local sw = win_of(src)
  if sw then
    vim.api.nvim_set_current_win(sw)
  else
    vim.cmd('leftabove vsplit')
    vim.api.nvim_win_set_buf(0, src)
  end
  vim.api.nvim_win_set_cursor(0, { it.line + 1, 0 })
end

local function set_window_options(win)
  local wo = vim.wo[win]
  wo.foldmethod = 'expr'
  wo.foldexpr = "v:lua.require'pi_lsp.preview'.foldexpr(v:lnum)"
  wo.foldtext = "v:lua.require'pi_lsp.preview'.foldtext()"
  wo.foldlevel = 1
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = 'no'
  wo.conceallevel = 2
end

local function create_buffer(src)
  local buf = vim.api.nvim_create_buf(false, true)
  local name = vim.api.nvim_buf_get_name(src)
  -- the file name (the full path when another preview has that name already)
  if not pcall(vim.api.nvim_buf_set_name, buf, 'pi-preview://' .. vim.fs.basename(name)) then
    vim.api.nvim_buf_set_name(buf, 'pi-preview://' .. name)
  end
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'markdown'
  source_of[buf] = src
  vim.keymap.set('n', 'gd', function()
    M.goto_item(buf)
  end, { buffer = buf, desc = 'pi-lsp: go to the line of this item in the session' })
  local group = vim.api.nvim_create_augroup('pi_lsp_preview_' .. src, { clear = true })
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    buffer = buf,
    callback = function()
      M.follow_preview(buf)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    callback = function()
      source_of[buf] = nil
      state[src] = nil
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  vim.api.nvim_create_autocmd('CursorMoved', {
    group = group,
    buffer = src,
    callback = function()
      M.follow_source(src)
    end,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI', 'BufWritePost', 'FileChangedShellPost' }, {
    group = group,
    buffer = src,
    callback = function()
      M.refresh_soon(src)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = src,
    callback = function()
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_delete(buf, { force = true })
      end
    end,
  })
  return buf
end

--- Show a `pi-lsp.preview` result in the preview buffer (opening its split when not shown).
local function show(src, result)
  local st = state[src]
  if not st then
    return
  end
  if not (st.buf and vim.api.nvim_buf_is_valid(st.buf)) then
    st.buf = create_buffer(src)
  end
  local lines = vim.split(result.markdown or '', '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    lines[#lines] = nil
  end
  st.items = result.items or {}
  st.leaf_id = result.leafId
  st.folds = M.fold_levels(lines, st.items)
  vim.bo[st.buf].modifiable = true
  vim.api.nvim_buf_set_lines(st.buf, 0, -1, false, lines)
  vim.bo[st.buf].modifiable = false
  vim.bo[st.buf].modified = false
  vim.b[st.buf].pi_lsp_leaf = result.leafId
  if not win_of(st.buf) then
    local back = vim.api.nvim_get_current_win()
    vim.cmd('rightbelow vsplit')
    vim.api.nvim_win_set_buf(0, st.buf)
    set_window_options(0)
    vim.api.nvim_set_current_win(back)
  end
  local pw = win_of(st.buf)
  for _, it in ipairs(st.keep and pw and st.items or {}) do
    if it.line == st.keep then
      vim.api.nvim_win_set_cursor(pw, { it.previewLine + 1, 0 })
    end
  end
  st.keep = nil
  M.follow_source(src)
end

--- Render the preview of session buffer `src` again now.
function M.refresh(src)
  local st = state[src]
  if not st then
    return
  end
  local options = { leaf = st.leaf or vim.NIL, format = 'markdown', around = st.around or vim.NIL }
  require('pi_lsp').execute(src, 'pi-lsp.preview', { vim.uri_from_bufnr(src), options }, function(result)
    show(src, result or {})
  end)
end

--- Render again after REFRESH_MS without another change.
function M.refresh_soon(src)
  local st = state[src]
  if not st then
    return
  end
  st.gen = (st.gen or 0) + 1
  local gen = st.gen
  vim.defer_fn(function()
    if state[src] and state[src].gen == gen then
      M.refresh(src)
    end
  end, REFRESH_MS)
end

--- :PiLspPreview[!] [leaf] — open (or render again) the preview of the current session; from
--- the preview itself, render it again. `leaf`: render the path to that entry instead of the
--- leaf pi resumes; no argument keeps the leaf shown; `!` goes back to the leaf pi resumes.
---@param bufnr integer?
---@param leaf string?
---@param resumed boolean?
function M.open(bufnr, leaf, resumed)
  local src = bufnr or vim.api.nvim_get_current_buf()
  src = source_of[src] or src
  state[src] = state[src] or { items = {} }
  if resumed then
    state[src].leaf, state[src].around = nil, nil
  elseif leaf and leaf ~= '' then
    state[src].leaf, state[src].around = leaf, nil
  end
  M.refresh(src)
end

return M
