-- Commands on top of the pi-lsp server's workspace commands (pi-lsp.tree, pi-lsp.context,
-- pi-lsp.migrate, pi-lsp.fork; pi-lsp.preview in pi_lsp/preview.lua). Used by plugin/pi_lsp.lua.
local M = {}

local function client_for(bufnr)
  local clients = vim.lsp.get_clients({ bufnr = bufnr, name = 'pi_lsp' })
  if #clients == 0 then
    vim.notify(
      'pi-lsp is not attached to this buffer (is it a pi session? :checkhealth vim.lsp)',
      vim.log.levels.WARN
    )
    return nil
  end
  return clients[1]
end

---@param bufnr integer
---@param command string
---@param arguments any[]
---@param on_result fun(result: any)
local function execute(bufnr, command, arguments, on_result)
  local client = client_for(bufnr)
  if not client then
    return
  end
  client:request('workspace/executeCommand', { command = command, arguments = arguments }, function(err, result)
    if err then
      vim.notify(('pi-lsp: %s failed: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end, bufnr)
end
M.execute = execute

--- The cells of a branch gutter (its own `│` column and the outer ones), built once per gutter.
---@param gutter table {position: integer, show: boolean, outer: table?, cells: string[]?}
---@return string[]
local function gutter_cells(gutter)
  local chain = {}
  local g = gutter
  while g and not g.cells do
    chain[#chain + 1] = g
    g = g.outer
  end
  for i = #chain, 1, -1 do
    g = chain[i]
    local cells = g.outer and vim.list_extend({}, g.outer.cells) or {}
    if g.outer and g.outer.position == g.position then
      cells[#cells] = nil -- the deeper gutter wins
    else
      local from = g.outer and g.outer.position + 1 or 0
      for _ = from, g.position - 1 do
        cells[#cells + 1] = '   '
      end
    end
    cells[#cells + 1] = g.show and '│  ' or '   '
    g.cells = cells
  end
  return gutter.cells
end

--- The indentation of a row: gutters, blank levels, then `├─ ` or `└─ ` where a branch starts.
local function prefix(display, connector, last, gutter)
  local cells = gutter and vim.list_extend({}, gutter_cells(gutter)) or {}
  local covered = gutter and gutter.position + 1 or 0
  for _ = covered + 1, display do
    cells[#cells + 1] = '   '
  end
  if connector and display > 0 and covered < display then
    cells[#cells] = last and '└─ ' or '├─ '
  end
  return table.concat(cells)
end

--- A node's title as the server gives it (its type when it has none).
local function title_of(n)
  if type(n.title) == 'string' and n.title ~= '' then
    return n.title
  end
  return type(n.type) == 'string' and n.type or '?'
end

--- The rows of `pi-lsp tree` (pi's `/tree`): pre-order, the branch holding the leaf first, linear
--- runs flat, each branch under a `├─`/`└─` connector with `│` gutters; entries on a parent
--- cycle (which no root reaches) last.
---@param tree table result of pi-lsp.tree
---@return {node: table, text: string}[]
function M.rows(tree)
  local by_id = {}
  for _, n in ipairs(tree.nodes or {}) do
    by_id[n.id] = n
  end
  local function ordered(ids)
    local active, rest = {}, {}
    for _, id in ipairs(ids or {}) do
      local n = by_id[id]
      if n then
        table.insert(n.onActivePath and active or rest, n)
      end
    end
    return vim.list_extend(active, rest)
  end
  local function text(n, indent)
    local label = type(n.labels) == 'table' and n.labels[1] or nil
    return indent
      .. (n.onActivePath and '• ' or '')
      .. (label and ('[' .. label .. '] ') or '')
      .. title_of(n)
      .. (n.isLeaf and '  ← leaf' or '')
  end
  local roots = ordered(tree.roots)
  local many = #roots > 1
  local stack = {}
  for i = #roots, 1, -1 do
    stack[#stack + 1] =
      { node = roots[i], indent = many and 1 or 0, branched = many, connector = false, last = i == #roots }
  end
  local out, seen = {}, {}
  while #stack > 0 do
    local top = table.remove(stack)
    local node = top.node
    if not seen[node.id] then
      seen[node.id] = true
      local display = many and math.max(0, top.indent - 1) or top.indent
      out[#out + 1] = { node = node, text = text(node, prefix(display, top.connector, top.last, top.gutter)) }
      local kids = ordered(node.children)
      local several = #kids > 1
      local child_indent = (several or (top.branched and top.indent > 0)) and top.indent + 1 or top.indent
      local gutter = top.gutter
      if top.connector then
        gutter = { position = math.max(0, display - 1), show = not top.last, outer = gutter }
      end
      for i = #kids, 1, -1 do
        stack[#stack + 1] = {
          node = kids[i],
          indent = child_indent,
          branched = several,
          connector = several,
          last = i == #kids,
          gutter = gutter,
        }
      end
    end
  end
  for _, n in ipairs(tree.nodes or {}) do
    if not seen[n.id] then
      out[#out + 1] = { node = n, text = '(in a parent cycle) ' .. title_of(n) }
    end
  end
  return out
end

--- 'quickfixtextfunc' of the tree's location list: the line number, then the row as drawn (the
--- default display would strip the row's leading indentation).
---@param info {winid: integer, id: integer, start_idx: integer, end_idx: integer}
---@return string[]
function M.tree_lines(info)
  local items = vim.fn.getloclist(info.winid, { id = info.id, items = 1 }).items
  local width = 1
  for _, it in ipairs(items) do
    width = math.max(width, #tostring(it.lnum))
  end
  local out = {}
  for i = info.start_idx, info.end_idx do
    out[#out + 1] = ('%' .. width .. 'd  %s'):format(items[i].lnum, items[i].text)
  end
  return out
end

--- :PiLspTree — the entry tree of the current session in the location list, drawn as
--- `pi-lsp tree` draws it; <CR> on a row jumps to its line.
function M.tree(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  execute(bufnr, 'pi-lsp.tree', { vim.uri_from_bufnr(bufnr) }, function(tree)
    local items = {}
    for _, row in ipairs(M.rows(tree or {})) do
      items[#items + 1] = { bufnr = bufnr, lnum = row.node.line + 1, col = 1, text = row.text }
    end
    vim.fn.setloclist(0, {}, ' ', { title = 'pi session tree', items = items, quickfixtextfunc = M.tree_lines })
    vim.cmd.lopen()
  end)
end

--- The id of the entry on the cursor line (via the server's tree), then `fn(id)`.
local function entry_at_cursor(bufnr, fn)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  execute(bufnr, 'pi-lsp.tree', { vim.uri_from_bufnr(bufnr) }, function(tree)
    for _, n in ipairs((tree or {}).nodes or {}) do
      if n.line == line then
        return fn(n.id, tree)
      end
    end
    fn(nil, tree)
  end)
end

--- :PiLspContext [id] — what pi would send to the model from the entry (default: cursor line).
function M.context(bufnr, entry_id)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local function show(id)
    execute(bufnr, 'pi-lsp.context', { vim.uri_from_bufnr(bufnr), id or vim.NIL }, function(ctx)
      ctx = ctx or {}
      local model = ctx.model
      if type(model) == 'table' then
        model = table.concat(vim.tbl_filter(function(v)
          return type(v) == 'string'
        end, { model.provider, model.modelId }), '/')
      end
      local items = {}
      for i, m in ipairs(ctx.messages or {}) do
        local title = (m.title and m.title ~= '') and m.title or m.role
        items[#items + 1] = { bufnr = bufnr, lnum = m.line + 1, col = 1, text = ('%d. %s'):format(i, title) }
      end
      local title = ('pi context from %s (model %s, thinking %s)'):format(
        id or 'leaf',
        type(model) == 'string' and model ~= '' and model or '?',
        type(ctx.thinkingLevel) == 'string' and ctx.thinkingLevel or '?'
      )
      vim.fn.setloclist(0, {}, ' ', { title = title, items = items })
      vim.cmd.lopen()
    end)
  end
  if entry_id and entry_id ~= '' then
    show(entry_id)
  else
    entry_at_cursor(bufnr, show)
  end
end

--- :PiLspMigrate — rewrite the session as v3 (the server applies the edit).
function M.migrate(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  execute(bufnr, 'pi-lsp.migrate', { vim.uri_from_bufnr(bufnr) }, function() end)
end

--- :PiLspFork [id] — fork the path to the entry (default: cursor line) into a new session file.
function M.fork(bufnr, entry_id)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local function go(id)
    if not id then
      vim.notify('pi-lsp: put the cursor on an entry line to fork from', vim.log.levels.WARN)
      return
    end
    execute(bufnr, 'pi-lsp.fork', { vim.uri_from_bufnr(bufnr), id }, function(result)
      if result and result.path then
        vim.cmd.edit(vim.fn.fnameescape(result.path))
        vim.notify('pi-lsp: forked into ' .. result.path)
      end
    end)
  end
  if entry_id and entry_id ~= '' then
    go(entry_id)
  else
    entry_at_cursor(bufnr, go)
  end
end

return M
