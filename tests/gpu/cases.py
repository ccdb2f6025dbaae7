"""Sizes per example for tests/gpu/run_all.sh (edit this table to add sizes).

Each case: (artifact, kernel, sizes, expect[, extra runner arguments]).
  artifact  a directory name under tests/gpu/artifacts/ (an example's name), or
            "tiny" for the runner's own test artifact tests/runner/fixtures/tiny
  expect    "ok"      correct against the reference (the kernel's first @bench's
                      reference, or none when the kernel has no @bench)
            "refuse"  the launcher must refuse the sizes (an assume fails)
            "wrong"   a planted bug the runner must report as not correct
GEMM sizes are timed with cuBLAS too (bf16 inputs, f32 output).
"""

GEMM = "M={},N={},K={}"


def gemm(m, n, k):
    return GEMM.format(m, n, k)


CASES = [
    # gemm_naive: assume(M > 0, N > 0, K > 0); 16 x 16 blocks
    ("gemm_naive", "gemm_naive", gemm(1024, 1024, 1024), "ok"),
    ("gemm_naive", "gemm_naive", gemm(1000, 999, 1001), "ok"),  # not tile multiples
    ("gemm_naive", "gemm_naive", gemm(2048, 2048, 2048), "ok"),
    ("gemm_naive", "gemm_naive", gemm(17, 5, 3), "ok"),
    ("gemm_naive", "gemm_naive", gemm(0, 64, 64), "refuse"),
    # gemm_tiled: assume(M % 64 == 0, N % 64 == 0, K % 32 == 0)
    ("gemm_tiled", "gemm_tiled", gemm(2048, 2048, 2048), "ok"),
    ("gemm_tiled", "gemm_tiled", gemm(4096, 4096, 4096), "ok"),
    ("gemm_tiled", "gemm_tiled", gemm(192, 320, 96), "ok"),
    ("gemm_tiled", "gemm_tiled", gemm(100, 64, 64), "refuse"),
    ("gemm_tiled", "gemm_tiled", gemm(64, 64, 48), "refuse"),
    # gemm_vectorized: assume(M % 128 == 0, N % 128 == 0, K % 64 == 0)
    ("gemm_vectorized", "gemm_vectorized", gemm(4096, 4096, 4096), "ok"),
    ("gemm_vectorized", "gemm_vectorized", gemm(1024, 1024, 1024), "ok"),
    ("gemm_vectorized", "gemm_vectorized", gemm(384, 640, 192), "ok"),
    ("gemm_vectorized", "gemm_vectorized", gemm(4000, 4096, 4096), "refuse"),
    # gemm_mma_sm90: assume(M % 128 == 0, N % 128 == 0, K % 32 == 0, K > 0)
    ("gemm_mma_sm90", "gemm_mma_sm90", gemm(4096, 4096, 4096), "ok"),
    ("gemm_mma_sm90", "gemm_mma_sm90", gemm(8192, 8192, 8192), "ok"),
    ("gemm_mma_sm90", "gemm_mma_sm90", gemm(256, 384, 96), "ok"),
    ("gemm_mma_sm90", "gemm_mma_sm90", gemm(4096, 4096, 4000), "ok"),  # K = 125 tiles
    ("gemm_mma_sm90", "gemm_mma_sm90", gemm(4096, 4096, 4080), "refuse"),
    # softmax: assume(M % 8 == 0, N % 32 == 0, N > 0); reference softmax_naive
    ("softmax", "softmax", "M=16384,N=4096", "ok"),
    ("softmax", "softmax", "M=4104,N=96", "ok"),
    ("softmax", "softmax", "M=8,N=32", "ok"),
    ("softmax", "softmax", "M=1000,N=1024", "ok"),  # 125 blocks of 8 rows
    ("softmax", "softmax", "M=1001,N=1024", "refuse"),
    ("softmax", "softmax", "M=4096,N=1000", "refuse"),
    # softmax_naive: assume(N > 0); no @bench of its own (outputs checked for
    # being written and finite), and not tile multiples
    ("softmax", "softmax_naive", "M=1000,N=999", "ok"),
    ("softmax", "softmax_naive", "M=64,N=0", "refuse"),
    # reduce_sum: assume(N > 0, B <= 16); before=reduce_zero zeroes Y each run
    ("reduce_sum", "reduce_sum", "B=8,N=8388608", "ok"),
    ("reduce_sum", "reduce_sum", "B=3,N=1000", "ok"),  # a partial tile
    ("reduce_sum", "reduce_sum", "B=16,N=4096", "ok"),
    ("reduce_sum", "reduce_sum", "B=17,N=4096", "refuse"),
    # gemm_splitk: assume(M % 64 == 0, N % 64 == 0, K % (32 * 4) == 0); before=gemm_zero
    ("gemm_splitk", "gemm_splitk", gemm(1024, 1024, 16384), "ok"),
    ("gemm_splitk", "gemm_splitk", gemm(192, 320, 256), "ok"),
    ("gemm_splitk", "gemm_splitk", gemm(64, 64, 128), "ok"),
    ("gemm_splitk", "gemm_splitk", gemm(64, 64, 96), "refuse"),
    # gemm_wgmma_sm90: assume(M % 128 == 0, N % 128 == 0, K % 64 == 0, K > 0); 4 stages
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(4096, 4096, 4096), "ok"),
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(8192, 8192, 8192), "ok"),
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(4096, 14336, 4096), "ok"),  # anchors: MLP up
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(128, 4096, 4096), "ok"),  # anchors: skinny
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(256, 384, 64), "ok"),    # one k-tile
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(128, 128, 320), "ok"),   # 5 k-tiles: wraps
    ("gemm_wgmma_sm90", "gemm_wgmma_sm90", gemm(128, 128, 96), "refuse"),
    # gemm_tma_wgmma_sm90: the same tiles fed by TMA (tensor maps built by the launcher)
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(4096, 4096, 4096), "ok"),
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(8192, 8192, 8192), "ok"),
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(4096, 14336, 4096), "ok"),
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(128, 4096, 4096), "ok"),
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(256, 384, 64), "ok"),    # one k-tile
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(128, 128, 320), "ok"),   # 5 k-tiles: wraps
    ("gemm_tma_wgmma_sm90", "gemm_tma_wgmma_sm90", gemm(128, 128, 96), "refuse"),
    # gemm_ws_wgmma_sm90: producer + two consumer warpgroups on mbarriers, 128 x 256 tiles
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(4096, 4096, 4096), "ok"),
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(8192, 8192, 8192), "ok"),
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(4096, 14336, 4096), "ok"),
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(128, 4096, 4096), "ok"),
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(256, 512, 64), "ok"),     # one k-tile
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(128, 256, 576), "ok"),    # 9 k-tiles: wraps twice
    ("gemm_ws_wgmma_sm90", "gemm_ws_wgmma_sm90", gemm(128, 128, 64), "refuse"),
    # gemm_multicast_sm90: clusters of 2 blocks sharing B by TMA multicast; M a multiple of 256
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(4096, 4096, 4096), "ok"),
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(8192, 8192, 8192), "ok"),
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(4096, 14336, 4096), "ok"),
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(1280, 512, 128), "ok"),  # a short last group
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(256, 512, 64), "ok"),    # one k-tile
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(256, 256, 576), "ok"),   # 9 k-tiles
    ("gemm_multicast_sm90", "gemm_multicast_sm90", gemm(128, 256, 64), "refuse"),  # half a cluster
    # gemm_ws_persistent_sm90: P blocks loop over the tiles; P = 132 SMs, and P = 1 and 3
    # (one block does every tile; blocks with unequal tile counts)
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(4096, 4096, 4096), "ok"),  # P = num_sms()
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(4096, 4096, 4096) + ",P=132", "ok"),
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(8192, 8192, 8192) + ",P=132", "ok"),
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(4096, 14336, 4096) + ",P=132", "ok"),
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(1152, 768, 640) + ",P=1", "ok"),
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(1152, 768, 640) + ",P=3", "ok"),
    ("gemm_ws_persistent_sm90", "gemm_ws_persistent_sm90", gemm(128, 128, 64) + ",P=132", "refuse"),
    # gemm_splitk_mma_sm90: assume(M % 128 == 0, N % 128 == 0, K % (32 * 4) == 0); before=gemm_zero
    ("gemm_splitk_mma_sm90", "gemm_splitk_mma", gemm(1024, 1024, 16384), "ok"),
    ("gemm_splitk_mma_sm90", "gemm_splitk_mma", gemm(4096, 4096, 4096), "ok"),
    ("gemm_splitk_mma_sm90", "gemm_splitk_mma", gemm(256, 128, 384), "ok"),  # 3 k-tiles per split
    ("gemm_splitk_mma_sm90", "gemm_splitk_mma", gemm(128, 128, 128), "ok"),  # 1 k-tile per split
    ("gemm_splitk_mma_sm90", "gemm_splitk_mma", gemm(128, 128, 64), "refuse"),
    # transpose: no assume; ragged edges guarded
    ("transpose", "transpose", "M=8192,N=8192", "ok"),
    ("transpose", "transpose", "M=1000,N=999", "ok"),
    ("transpose", "transpose", "M=1,N=33", "ok"),
    # layer_norm / rms_norm: assume(M % 8 == 0, N % 32 == 0, N > 0)
    ("layer_norm", "layer_norm", "M=16384,N=4096", "ok"),
    ("layer_norm", "layer_norm", "M=8,N=32", "ok"),
    ("layer_norm", "layer_norm", "M=1000,N=1024", "ok"),
    ("layer_norm", "layer_norm", "M=1001,N=1024", "refuse"),
    ("layer_norm", "rms_norm", "M=16384,N=4096", "ok"),
    ("layer_norm", "rms_norm", "M=1000,N=96", "ok"),
    ("layer_norm", "rms_norm", "M=64,N=100", "refuse"),
    # moe_grouped_gemm: assume(N % 64 == 0, K % 32 == 0, E <= 8); the runner's
    # grouped_matmul reference draws uneven offsets with empty experts
    ("moe_grouped_gemm", "moe_grouped_gemm", "T=8192,N=14336,K=4096,E=8", "ok"),
    ("moe_grouped_gemm", "moe_grouped_gemm", "T=1000,N=128,K=96,E=8", "ok"),  # partial tiles
    ("moe_grouped_gemm", "moe_grouped_gemm", "T=64,N=64,K=32,E=1", "ok"),
    ("moe_grouped_gemm", "moe_grouped_gemm", "T=64,N=64,K=32,E=9", "refuse"),
    # moe_grouped_gemm_wgmma_sm90: assume(N % 256 == 0, K % 64 == 0, K > 0, E <= 8); uneven
    # experts of several 128-row tiles that start inside a tile (T=1000), rows past T
    ("moe_grouped_gemm_wgmma_sm90", "moe_grouped_gemm_wgmma", "T=8192,N=14336,K=4096,E=8", "ok"),
    ("moe_grouped_gemm_wgmma_sm90", "moe_grouped_gemm_wgmma", "T=1000,N=256,K=320,E=8", "ok"),
    ("moe_grouped_gemm_wgmma_sm90", "moe_grouped_gemm_wgmma", "T=300,N=512,K=64,E=3", "ok"),
    ("moe_grouped_gemm_wgmma_sm90", "moe_grouped_gemm_wgmma", "T=64,N=128,K=96,E=1", "refuse"),
    # moe_grouped_gemm_mma_sm90: assume(N % 128 == 0, K % 32 == 0, K > 0, E <= 8);
    # uneven experts of more than one 128-row tile with an odd k-tile count (T=1000, K=96)
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma", "T=8192,N=14336,K=4096,E=8", "ok"),
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma", "T=1000,N=128,K=96,E=8", "ok"),
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma", "T=300,N=256,K=64,E=3", "ok"),
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma", "T=64,N=128,K=32,E=1", "ok"),
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma", "T=64,N=64,K=32,E=1", "refuse"),
    # flash_attention: assume(S % 32 == 0); D = 64 in the file
    ("flash_attention", "attention", "B=4,H=32,S=4096", "ok"),
    ("flash_attention", "attention", "B=1,H=2,S=96", "ok"),  # S not a multiple of the 64-row tile
    ("flash_attention", "attention", "B=2,H=3,S=32", "ok"),
    ("flash_attention", "attention", "B=1,H=1,S=100", "refuse"),
    ("flash_attention", "attention_causal", "B=4,H=32,S=4096", "ok"),
    ("flash_attention", "attention_causal", "B=1,H=2,S=96", "ok"),
    # flash_attn_fwd_sm90: assume(S > 0, 0 <= causal <= 1); D = 64; ragged S
    # zero-filled and masked
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=4,H=32,S=4096,causal=0", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=4,H=32,S=4096,causal=1", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=2,H=8,S=1000,causal=0", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=2,H=8,S=1000,causal=1", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=1,H=3,S=65,causal=1", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=1,H=1,S=1,causal=0", "ok"),
    ("flash_attn_fwd_sm90", "flash_attn_fwd", "B=1,H=1,S=64,causal=2", "refuse"),
    # flash_attn_fwd_d128_sm90: the same at D = 128
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128", "B=4,H=32,S=4096,causal=0", "ok"),
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128", "B=4,H=32,S=4096,causal=1", "ok"),
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128", "B=2,H=8,S=1000,causal=1", "ok"),
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128", "B=1,H=3,S=65,causal=0", "ok"),
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128", "B=1,H=1,S=0,causal=0", "refuse"),
    # flash_attn_fwd_wgmma_sm90: D = 128 on wgmma, 128-row blocks of two warpgroups
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=4,H=32,S=4096,causal=0", "ok"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=4,H=32,S=4096,causal=1", "ok"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=2,H=8,S=1000,causal=1", "ok"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=1,H=3,S=65,causal=0", "ok"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=1,H=2,S=200,causal=1", "ok"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma", "B=1,H=1,S=0,causal=0", "refuse"),
    # flash_attn_fwd_ws_sm90: FA3-style (producer + 2 consumers, TMA K/V, MN-major V)
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=4,H=32,S=4096,causal=0", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=4,H=32,S=4096,causal=1", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=2,H=8,S=1000,causal=1", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=2,H=8,S=1000,causal=0", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=1,H=3,S=65,causal=0", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=1,H=2,S=200,causal=1", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=1,H=1,S=1,causal=1", "ok"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws", "B=1,H=1,S=0,causal=0", "refuse"),
    # bench/variants/flash_attn_ws_d64.argus (prepare.sh compiles the variants as v_NAME):
    # the FA3-style kernel at D = 64
    ("v_flash_attn_ws_d64", "flash_attn_fwd_ws", "B=4,H=32,S=4096,causal=0", "ok"),
    ("v_flash_attn_ws_d64", "flash_attn_fwd_ws", "B=4,H=32,S=4096,causal=1", "ok"),
    ("v_flash_attn_ws_d64", "flash_attn_fwd_ws", "B=2,H=8,S=1000,causal=1", "ok"),
    ("v_flash_attn_ws_d64", "flash_attn_fwd_ws", "B=1,H=3,S=65,causal=0", "ok"),
    # the runner's own test artifact
    ("tiny", "matmul_naive", gemm(256, 256, 256), "ok"),
    ("tiny", "matmul_naive", gemm(48, 100, 37), "ok"),
    ("tiny", "matmul_naive", gemm(100, 64, 64), "refuse"),
    ("tiny", "scale", "N=1048576", "ok"),
    ("tiny", "scale", "N=1000", "ok"),
    ("tiny", "scale", "N=0", "refuse"),
    ("tiny", "scale_skip", "N=1000", "wrong", ["--reference", "scale_ref"]),
    ("tiny", "scale_wrong", "N=4096", "wrong", ["--reference", "scale_ref"]),
]

# The library each example is timed against in the same run (bench/library_time.py
# OP SIZES): (artifact, kernel) -> (op, extra sizes), or a function of the case's
# sizes giving them. GEMM-shaped cases are timed
# with cuBLAS above; these are the others.
LIBRARY = {
    ("reduce_sum", "reduce_sum"): ("row_sum", ""),
    ("transpose", "transpose"): ("transpose", ""),
    ("layer_norm", "layer_norm"): ("layer_norm", ""),
    ("layer_norm", "rms_norm"): ("rms_norm", ""),
    ("softmax", "softmax"): ("softmax", ""),
    ("moe_grouped_gemm", "moe_grouped_gemm"): ("grouped_matmul", ""),
    ("moe_grouped_gemm_mma_sm90", "moe_grouped_gemm_mma"): ("grouped_matmul", ""),
    ("moe_grouped_gemm_wgmma_sm90", "moe_grouped_gemm_wgmma"): ("grouped_matmul", ""),
    ("flash_attention", "attention"): ("attention", "D=64"),
    ("flash_attention", "attention_causal"): ("attention_causal", "D=64"),
    # one kernel, causal or not by its flag
    ("flash_attn_fwd_sm90", "flash_attn_fwd"):
        lambda sizes: ("attention_causal" if "causal=1" in sizes else "attention", "D=64"),
    ("flash_attn_fwd_d128_sm90", "flash_attn_fwd_d128"):
        lambda sizes: ("attention_causal" if "causal=1" in sizes else "attention", "D=128"),
    ("flash_attn_fwd_wgmma_sm90", "flash_attn_fwd_wgmma"):
        lambda sizes: ("attention_causal" if "causal=1" in sizes else "attention", "D=128"),
    ("flash_attn_fwd_ws_sm90", "flash_attn_fwd_ws"):
        lambda sizes: ("attention_causal" if "causal=1" in sizes else "attention", "D=128"),
    ("v_flash_attn_ws_d64", "flash_attn_fwd_ws"):
        lambda sizes: ("attention_causal" if "causal=1" in sizes else "attention", "D=64"),
}
