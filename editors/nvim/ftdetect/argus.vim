" .argus files are Argus kernels (Python syntax; see editors/nvim/README.md).
autocmd BufRead,BufNewFile *.argus setfiletype argus
