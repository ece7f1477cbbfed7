" ftdetect/gpm.vim: sets the filetype of *.gpm files (gpmc performance models) to gpm.
autocmd BufRead,BufNewFile *.gpm setfiletype gpm
