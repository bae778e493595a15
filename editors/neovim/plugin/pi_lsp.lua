-- User commands for pi session buffers (the server itself is enabled with vim.lsp.enable('pi_lsp')).
if vim.g.loaded_pi_lsp then
  return
end
vim.g.loaded_pi_lsp = true

-- Also make detection work when this directory is added to 'runtimepath' after startup
-- (ftdetect/ is only sourced at startup and by :packadd).
require('pi_lsp.filetype').setup()

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, function(a)
    fn(a)
  end, opts or {})
end

cmd('PiLspTree', function()
  require('pi_lsp').tree()
end, { desc = 'pi-lsp: show the session entry tree in the location list' })
cmd('PiLspContext', function(a)
  require('pi_lsp').context(nil, a.args)
end, { nargs = '?', desc = 'pi-lsp: what pi sends to the model from the entry under the cursor (or [id])' })
cmd('PiLspMigrate', function()
  require('pi_lsp').migrate()
end, { desc = 'pi-lsp: migrate the session to format v3' })
cmd('PiLspFork', function(a)
  require('pi_lsp').fork(nil, a.args)
end, { nargs = '?', desc = 'pi-lsp: fork the path to the entry under the cursor (or [id]) into a new session' })
cmd('PiLspPreview', function(a)
  require('pi_lsp.preview').open(nil, a.args, a.bang)
end, {
  nargs = '?',
  bang = true,
  desc = 'pi-lsp: the conversation in a read-only split (along [leaf id]; ! the leaf pi resumes)',
})
