-- Setup for the README screenshot: a real (tmux-hosted) Neovim with the pi-lsp config that
-- shows the diagnostics as virtual lines and the hover of one entry, then writes a marker file.
-- Usage (see test_neovim.py): nvim --clean --cmd 'set rtp^=editors/neovim' --cmd 'luafile THIS' FILE
-- Globals from --cmd: vim.g.pi_shot = { server_cmd = {...}, hover_line = N, done = PATH }
local spec = vim.g.pi_shot
vim.o.termguicolors = true
vim.o.number = true
vim.o.wrap = false
vim.o.laststatus = 2
vim.o.signcolumn = 'yes'
vim.o.shortmess = vim.o.shortmess .. 'IF'
vim.diagnostic.config({ virtual_lines = true, virtual_text = false, signs = true, underline = true })
vim.lsp.config('pi_lsp', { cmd = spec.server_cmd })
vim.lsp.enable('pi_lsp')

local shown = false
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  callback = function(args)
    if shown or #vim.diagnostic.get(args.buf) == 0 then
      return
    end
    shown = true
    vim.defer_fn(function()
      vim.api.nvim_win_set_cursor(0, { spec.hover_line + 1, 0 })
      -- below the line's virtual diagnostic lines, so both stay readable
      vim.lsp.buf.hover({ border = 'rounded', max_width = 90, max_height = 18, offset_y = spec.offset_y or 0 })
      vim.defer_fn(function()
        vim.fn.writefile({ 'done' }, spec.done)
      end, 1500)
    end, 800)
  end,
})
