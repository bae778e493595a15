-- Detect pi coding agent session files as the compound filetype "jsonl.pisession":
-- JSON Lines stays the base filetype (its syntax, ftplugins and tools still apply) and
-- "pisession" is what lsp/pi_lsp.lua attaches to.
--   * any *.jsonl below a .pi/agent/sessions/ directory;
--   * any other *.jsonl whose first line is a pi session header ({"type":"session",...}) or
--     the "session_header" dialect's header.
require('pi_lsp.filetype').setup()
