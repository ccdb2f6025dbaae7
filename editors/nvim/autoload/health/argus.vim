" :checkhealth argus on Neovim 0.7 (and later: one health check for every version).
function! health#argus#check() abort
  lua require('argus.checkhealth').check()
endfunction
