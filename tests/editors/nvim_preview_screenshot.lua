-- Setup for the README screenshot of :PiLspPreview: a real (tmux-hosted) Neovim on a session
-- with the cursor on one entry, the preview split beside it following the cursor; then it
-- writes a marker file.
-- Usage (see test_neovim.py): nvim --clean --cmd 'set rtp^=editors/neovim' --cmd 'luafile THIS' FILE
-- Globals from --cmd: vim.g.pi_shot = { server_cmd = {...}, cursor_line = N, done = PATH }
local spec = vim.g.pi_shot
vim.o.termguicolors = true
vim.o.number = true
vim.o.wrap = false
vim.o.laststatus = 2
vim.o.signcolumn = 'yes'
vim.o.shortmess = vim.o.shortmess .. 'IF'
vim.lsp.config('pi_lsp', { cmd = spec.server_cmd })
vim.lsp.enable('pi_lsp')

local function preview_shown()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(w)
    if vim.api.nvim_buf_get_name(buf):match('^pi%-preview://') and vim.api.nvim_buf_line_count(buf) > 1 then
      return true
    end
  end
  return false
end

vim.api.nvim_create_autocmd('LspAttach', {
  once = true,
  callback = function(args)
    vim.defer_fn(function()
      vim.api.nvim_win_set_cursor(0, { spec.cursor_line + 1, 0 })
      vim.cmd('PiLspPreview')
      local function settle()
        if not preview_shown() then
          return vim.defer_fn(settle, 100)
        end
        vim.api.nvim_exec_autocmds('CursorMoved', { buffer = args.buf })
        vim.defer_fn(function()
          vim.fn.writefile({ 'done' }, spec.done)
        end, 800)
      end
      settle()
    end, 500)
  end,
})
