" bmvault: keep the editor buffer of `bmvault note add`, `quote add` and `edit` out of
" vim's and neovim's own files. bmvault shreds the buffer itself; these settings stop the
" editor from copying it elsewhere first (swap, backup and undo files, viminfo/shada).
"
" Install: copy to ~/.vim/plugin/bmvault.vim (vim) or ~/.config/nvim/plugin/bmvault.vim
" (neovim). The pattern matches bmvault's buffer: $XDG_RUNTIME_DIR/bmvault-edit-XXXXXX/note.md
" (or quote.md).
augroup bmvault
  autocmd!
  autocmd BufNewFile,BufReadPre */bmvault-edit-*/* setlocal noswapfile nobackup nowritebackup noundofile
  " viminfo (vim) and shada (neovim) are global: off for this editor session, which
  " bmvault started for this one buffer.
  autocmd BufNewFile,BufReadPre */bmvault-edit-*/* if has('nvim') | set shada= | else | set viminfo= | endif
augroup END
