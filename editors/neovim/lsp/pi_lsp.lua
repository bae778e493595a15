-- pi-lsp: language server for pi coding agent session files (.jsonl).
-- Neovim 0.11+:  vim.lsp.enable('pi_lsp')
-- Override anything with vim.lsp.config('pi_lsp', { ... }), e.g.
--   vim.lsp.config('pi_lsp', { cmd = { 'python3', '-m', 'pi_lsp' } })
--   vim.lsp.config('pi_lsp', { settings = { piLsp = { severity = { PI103 = 'information' } } } })

--- Sessions live in ~/.pi/agent/sessions/--<cwd>--/*.jsonl and have no project root: use the
--- sessions directory itself (one server for all of them), else the nearest VCS root, else the
--- file's own directory.
---@param bufnr integer
---@param on_dir fun(root_dir?: string)
local function root_dir(bufnr, on_dir)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    on_dir(vim.uv.cwd())
    return
  end
  local file = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
  local sessions = file:match('^(.*/%.pi/agent/sessions)/')
  if sessions then
    on_dir(sessions)
    return
  end
  on_dir(vim.fs.root(bufnr, { '.git', '.hg', '.jj' }) or vim.fs.dirname(file))
end

---@type vim.lsp.Config
return {
  cmd = { 'pi-lsp' },
  filetypes = { 'jsonl.pisession', 'pisession' },
  root_dir = root_dir,
  workspace_required = false,
  -- Server settings (section "piLsp"): answered to workspace/configuration, and also sent as
  -- initializationOptions. Keys: severity = { PI103 = 'warning'|'error'|'information'|'hint'|'off' },
  -- largeLineThreshold = <bytes>, outlineCap = <entries>.
  settings = {
    piLsp = vim.empty_dict(),
  },
  before_init = function(params, config)
    local s = config.settings and config.settings.piLsp
    if s ~= nil then
      params.initializationOptions = s
    end
  end,
}
