" Vim syntax for Argus kernels: colour before (or without) tree-sitter and the
" language server. The tree-sitter highlighter replaces it when it starts.
if exists('b:current_syntax')
  finish
endif

syntax keyword argusStatement def return pass for in if elif else while and or not is
syntax keyword argusConstant True False None
syntax keyword argusType f32 f16 bf16 f64 i8 i16 i32 i64 u8 u16 u32 u64 u128 fp8 e4m3 e5m2 Tensor
syntax keyword argusBuiltin thread_id block_id block_dim grid_dim lane_id warp_id warpgroup_id cluster_rank cluster_id cluster_sync cdiv min max abs
syntax keyword argusBuiltin convert bitcast exp exp2 log log2 sqrt rsqrt tanh fma range
syntax keyword argusBuiltin make_shared make_local full view subview make_layout Swizzle compose
syntax keyword argusBuiltin shuffle shuffle_xor shuffle_up shuffle_down
syntax keyword argusBarrier syncthreads async_commit async_wait
syntax keyword argusTag tag assert_tag assert_tag_eq reset_tags assert_covered assume
syntax match argusIntrinsic "\<\(nvvm\|amdgpu\)\.\h\w*"
syntax match argusDecorator "@\h\w*"
syntax match argusNumber "\<\d\+\(\.\d*\)\?\([eE][+-]\?\d\+\)\?\>"
syntax match argusNumber "\<0[xX]\x\+\>"
syntax match argusComment "#.*$" contains=@Spell
syntax region argusString start=+"+ skip=+\\"+ end=+"+ keepend
syntax region argusString start=+'+ skip=+\\'+ end=+'+ keepend
syntax region argusDocstring start=+"""+ end=+"""+ keepend contains=@Spell

highlight default link argusStatement Statement
highlight default link argusConstant Constant
highlight default link argusType Type
highlight default link argusBuiltin Function
highlight default link argusBarrier Special
highlight default link argusTag Macro
highlight default link argusIntrinsic Special
highlight default link argusDecorator PreProc
highlight default link argusNumber Number
highlight default link argusComment Comment
highlight default link argusString String
highlight default link argusDocstring Comment

let b:current_syntax = 'argus'
