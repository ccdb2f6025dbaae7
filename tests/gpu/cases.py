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
