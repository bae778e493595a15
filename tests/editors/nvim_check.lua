-- Drives a headless Neovim against pi-lsp and records what happened as JSON.
-- Usage: nvim --headless --clean --cmd 'set rtp^=editors/neovim' -l nvim_check.lua SPEC.json OUT.json
-- SPEC: { session, server_cmd = [...], definition = {line, col, expect_line},
--         hover = {line, col}, migrate_pattern = '^Migrate session.* to v3', timeout_ms,
--         severity_off = 'PI400' }
local spec = vim.json.decode(table.concat(vim.fn.readfile(arg[1]), '\n'))
local out_path = arg[2]
local timeout = spec.timeout_ms or 20000
local R = { steps = {}, errors = {} }

local function step(name)
  R.steps[#R.steps + 1] = name
end

local function finish()
  vim.fn.writefile({ vim.json.encode(R) }, out_path)
  vim.cmd('qa!')
end

local function wait(what, ms, cond)
  local ok = vim.wait(ms or timeout, cond, 50)
  if not ok then
    error('timed out waiting for ' .. what, 0)
  end
end

local function pi_diagnostics(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    out[#out + 1] = {
      line = d.lnum,
      col = d.col,
      end_line = d.end_lnum,
      end_col = d.end_col,
      code = d.code,
      source = d.source,
      severity = d.severity,
      message = d.message,
    }
  end
  table.sort(out, function(a, b)
    return a.line < b.line or (a.line == b.line and tostring(a.code) < tostring(b.code))
  end)
  return out
end

local function main()
  vim.lsp.config('pi_lsp', { cmd = spec.server_cmd, settings = spec.settings })
  vim.lsp.enable('pi_lsp')
  R.config_filetypes = vim.lsp.config.pi_lsp.filetypes

  -- 1. open the session: filetype detection + attach
  vim.cmd.edit(vim.fn.fnameescape(spec.session))
  local buf = vim.api.nvim_get_current_buf()
  R.filetype = vim.bo[buf].filetype
  R.syntax = vim.b[buf].current_syntax
  step('opened')
  local client
  wait('the pi_lsp client to attach', nil, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'pi_lsp' })[1]
    return client ~= nil and client.initialized == true
  end)
  R.attached = true
  R.server_info = client.server_info
  R.root_dir = client.root_dir
  R.offset_encoding = client.offset_encoding
  step('attached')

  -- 2. diagnostics
  wait('diagnostics', nil, function()
    return #vim.diagnostic.get(buf) >= (spec.min_diagnostics or 1)
  end)
  vim.wait(500) -- let a possible second publish settle
  R.diagnostics = pi_diagnostics(buf)
  step('diagnostics')

  -- 3. go to definition from a parentId value
  local d = spec.definition
  vim.api.nvim_win_set_cursor(0, { d.line + 1, d.col })
  vim.lsp.buf.definition()
  local ok = vim.wait(timeout, function()
    return vim.api.nvim_win_get_cursor(0)[1] - 1 ~= d.line
  end, 50)
  R.definition_line = vim.api.nvim_win_get_cursor(0)[1] - 1
  R.definition_moved = ok
  R.definition_buf_same = vim.api.nvim_get_current_buf() == buf
  step('definition')

  -- 4. hover on an entry line
  local h = spec.hover
  vim.api.nvim_win_set_cursor(0, { h.line + 1, h.col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, timeout)
  local hover
  for _, r in pairs(res or {}) do
    if r.result and r.result.contents then
      hover = r.result.contents
    end
    if r.err then
      R.errors[#R.errors + 1] = 'hover: ' .. vim.inspect(r.err)
    end
  end
  if type(hover) == 'table' and hover.value then
    R.hover = hover.value
  elseif type(hover) == 'table' then
    R.hover = vim.inspect(hover)
  else
    R.hover = hover
  end
  step('hover')

  -- 5. the plugin's :PiLspTree / :PiLspContext (workspace commands pi-lsp.tree and
  -- pi-lsp.context) fill the location list
  local function loclist_of(cmd, title_pat)
    local main = vim.api.nvim_get_current_win()
    vim.fn.setloclist(main, {}, 'f')
    vim.cmd(cmd)
    pcall(wait, cmd, 10000, function()
      local l = vim.fn.getloclist(main, { title = 1, winid = 1 })
      return l.title:find(title_pat) ~= nil and l.winid ~= 0
    end)
    local l = vim.fn.getloclist(main, { title = 1, items = 1 })
    pcall(vim.cmd.lclose)
    vim.api.nvim_set_current_win(main)
    vim.api.nvim_set_current_buf(buf)
    local out = {}
    for _, it in ipairs(l.items or {}) do
      out[#out + 1] = { line = it.lnum - 1, text = it.text }
    end
    return out, l.title
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  R.tree_items = loclist_of('PiLspTree', '^pi session tree')
  step('tree')
  R.context_items, R.context_title = loclist_of('PiLspContext ' .. spec.context_entry, '^pi context')
  step('context')

  -- 5b. :PiLspContext with an id that names nothing: an error, not another entry's context
  local notified = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    notified[#notified + 1] = { msg = msg, level = level }
  end
  local main_win = vim.api.nvim_get_current_win()
  vim.fn.setloclist(main_win, {}, 'f')
  vim.cmd('PiLspContext nosuchid')
  pcall(wait, 'the context error', 10000, function()
    return #notified > 0
  end)
  vim.notify = notify
  R.context_unknown_notified = notified
  R.context_unknown_title = vim.fn.getloclist(main_win, { title = 1 }).title
  step('context-unknown')

  -- 5c. a settings change the README's way (no restart): the diagnostics shown follow it
  R.codes_before = vim.tbl_map(function(x)
    return x.code
  end, vim.diagnostic.get(buf))
  client.settings = vim.tbl_deep_extend('force', client.settings or {}, {
    piLsp = { severity = { [spec.severity_off] = 'off' } },
  })
  client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  pcall(wait, 'the diagnostics to follow the settings', 10000, function()
    for _, x in ipairs(vim.diagnostic.get(buf)) do
      if x.code == spec.severity_off then
        return false
      end
    end
    return true
  end)
  R.codes_after_off = vim.tbl_map(function(x)
    return x.code
  end, vim.diagnostic.get(buf))
  client.settings.piLsp.severity = vim.empty_dict()
  client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  pcall(wait, 'the diagnostics to come back', 10000, function()
    return #vim.diagnostic.get(buf) == #R.codes_before
  end)
  R.codes_restored = vim.tbl_map(function(x)
    return x.code
  end, vim.diagnostic.get(buf))
  step('settings-refresh')

  -- 6. the migration quick fix on the header line
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  local titles = {}
  local cparams = vim.lsp.util.make_range_params(0, client.offset_encoding)
  cparams.context = {
    diagnostics = vim.tbl_map(function(x)
      return x.user_data and x.user_data.lsp or nil
    end, vim.diagnostic.get(buf, { lnum = 0 })),
    only = { 'quickfix' },
  }
  local cres = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', cparams, timeout)
  for _, r in pairs(cres or {}) do
    for _, a in ipairs(r.result or {}) do
      titles[#titles + 1] = a.title
    end
  end
  R.code_action_titles = titles
  local picked = false
  vim.lsp.buf.code_action({
    context = { only = { 'quickfix' }, diagnostics = cparams.context.diagnostics },
    filter = function(a)
      -- the first matching action only (apply = true needs exactly one)
      if not picked and a.title:find(spec.migrate_pattern) then
        picked = true
        return true
      end
      return false
    end,
    apply = true,
  })
  local migrated = vim.wait(timeout, function()
    local first = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ''
    return first:find('"version"%s*:%s*3') ~= nil
  end, 50)
  R.migrated = migrated
  R.lines_after = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  step('migrate')
  if migrated then
    vim.cmd('silent write')
    -- diagnostics are re-published for the new text: PI103 must be gone
    vim.wait(timeout, function()
      for _, x in ipairs(vim.diagnostic.get(buf)) do
        if x.code == 'PI103' then
          return false
        end
      end
      return true
    end, 50)
    R.diagnostics_after = pi_diagnostics(buf)
    step('saved')
  end

  -- 7. :PiLspFork <id> (pi-lsp.fork) writes a new session beside it and opens it
  vim.cmd('PiLspFork ' .. spec.fork_entry)
  pcall(wait, 'the fork to open', 10000, function()
    return vim.api.nvim_get_current_buf() ~= buf
  end)
  if vim.api.nvim_get_current_buf() ~= buf then
    R.fork_path = vim.api.nvim_buf_get_name(0)
    R.fork_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    R.fork_filetype = vim.bo.filetype
  end
  step('fork')

  -- 8. :PiLspMigrate (pi-lsp.migrate) on a second unmigrated session
  vim.cmd.edit(vim.fn.fnameescape(spec.session2))
  local buf2 = vim.api.nvim_get_current_buf()
  wait('the client to attach to the second session', nil, function()
    return #vim.lsp.get_clients({ bufnr = buf2, name = 'pi_lsp' }) > 0
  end)
  wait('diagnostics of the second session', nil, function()
    return #vim.diagnostic.get(buf2) > 0
  end)
  vim.cmd('PiLspMigrate')
  R.migrate_command = vim.wait(timeout, function()
    local first = vim.api.nvim_buf_get_lines(buf2, 0, 1, false)[1] or ''
    return first:find('"version"%s*:%s*3') ~= nil
  end, 50)
  step('migrate-command')
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  R.errors[#R.errors + 1] = tostring(err)
end
finish()
