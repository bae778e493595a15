-- Neovim 0.12 lists the problems of sessions it never opened: with diagnosticMode 'pull',
-- vim.lsp.buf.workspace_diagnostics() fills vim.diagnostic for every session of the root,
-- and vim.diagnostic.setqflist() puts them in the quickfix list. Records JSON.
-- Usage: nvim --headless --clean --cmd 'set rtp^=editors/neovim' -l nvim_workspace.lua SPEC.json OUT.json
-- SPEC: { open = path of a clean session, broken = path of a broken one, server_cmd, timeout_ms }
local spec = vim.json.decode(table.concat(vim.fn.readfile(arg[1]), '\n'))
local out_path = arg[2]
local timeout = spec.timeout_ms or 20000
local R = { errors = {} }

local function main()
  vim.lsp.config('pi_lsp', { cmd = spec.server_cmd, settings = { piLsp = { diagnosticMode = 'pull' } } })
  vim.lsp.enable('pi_lsp')
  vim.cmd.edit(vim.fn.fnameescape(spec.open))
  local buf = vim.api.nvim_get_current_buf()
  local client
  assert(vim.wait(timeout, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'pi_lsp' })[1]
    return client ~= nil and client.initialized
  end, 50), 'the client did not attach')
  R.workspace_capability = vim.tbl_get(client.server_capabilities, 'diagnosticProvider', 'workspaceDiagnostics')
  R.loaded_before = vim.fn.bufloaded(spec.broken) == 1
  vim.lsp.buf.workspace_diagnostics({ client_id = client.id })
  local broken = vim.fn.bufnr(spec.broken)
  vim.wait(timeout, function()
    broken = vim.fn.bufnr(spec.broken)
    return broken > 0 and #vim.diagnostic.get(broken) > 0
  end, 50)
  R.codes = {}
  if broken > 0 then
    for _, d in ipairs(vim.diagnostic.get(broken)) do
      R.codes[#R.codes + 1] = d.code
    end
  end
  table.sort(R.codes)
  vim.diagnostic.setqflist({ open = false })
  R.quickfix = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    R.quickfix[#R.quickfix + 1] = vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':t') .. ':' .. item.lnum
  end
  R.windows_on_broken = #vim.fn.win_findbuf(math.max(broken, 0))
end

local ok, err = pcall(main)
if not ok then
  R.errors[#R.errors + 1] = tostring(err)
end
vim.fn.writefile({ vim.json.encode(R) }, out_path)
vim.cmd('qa!')
