-- Commands on top of the pi-lsp server's workspace commands (pi-lsp.tree, pi-lsp.context,
-- pi-lsp.migrate, pi-lsp.fork). Used by plugin/pi_lsp.lua.
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

--- Flatten the tree like an outline: linear runs at one level, one indented group per branch.
---@param tree table result of pi-lsp.tree
---@return {node: table, depth: integer, branch: boolean}[]
function M.flatten(tree)
  local by_id = {}
  for _, n in ipairs(tree.nodes or {}) do
    by_id[n.id] = n
  end
  local out, seen = {}, {}
  local function chain(id, depth)
    local stack = { { id = id, depth = depth, branch = false } }
    while #stack > 0 do
      local top = table.remove(stack)
      local cur = by_id[top.id]
      local d = top.depth
      local first = top.branch
      while cur and not seen[cur.id] do
        seen[cur.id] = true
        out[#out + 1] = { node = cur, depth = d, branch = first }
        first = false
        local kids = {}
        for _, c in ipairs(cur.children or {}) do
          if by_id[c] then
            kids[#kids + 1] = c
          end
        end
        if #kids == 1 then
          cur = by_id[kids[1]]
        else
          for i = #kids, 1, -1 do
            stack[#stack + 1] = { id = kids[i], depth = d + 1, branch = true }
          end
          cur = nil
        end
      end
    end
  end
  local roots = tree.roots or {}
  for _, r in ipairs(roots) do
    chain(r, #roots > 1 and 1 or 0)
  end
  return out
end

local function node_text(item)
  local n = item.node
  local parts = { string.rep('  ', item.depth) .. (item.branch and '├ ' or '') .. (n.title ~= '' and n.title or n.type) }
  for _, l in ipairs(n.labels or {}) do
    parts[#parts + 1] = '[' .. l .. ']'
  end
  if n.isLeaf then
    parts[#parts + 1] = '(leaf)'
  elseif n.onActivePath then
    parts[#parts + 1] = '*'
  end
  return table.concat(parts, ' ')
end

--- :PiLspTree — the entry tree of the current session in the location list.
function M.tree(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  execute(bufnr, 'pi-lsp.tree', { vim.uri_from_bufnr(bufnr) }, function(tree)
    local items = {}
    for _, item in ipairs(M.flatten(tree or {})) do
      items[#items + 1] = { bufnr = bufnr, lnum = item.node.line + 1, col = 1, text = node_text(item) }
    end
    vim.fn.setloclist(0, {}, ' ', { title = 'pi session tree', items = items })
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
