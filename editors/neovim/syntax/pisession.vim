" Colouring for pi session files (filetype jsonl.pisession): every line is one JSON
" object, so JSON syntax works line by line. Only used when no jsonl syntax is loaded.
if exists('b:current_syntax')
  finish
endif
runtime! syntax/json.vim
unlet! b:current_syntax
let b:current_syntax = 'pisession'
