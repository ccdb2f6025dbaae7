#!/usr/bin/env python3
"""The reference library's time for `argus agent eval --library`.

    python3 bench/library_time.py OP SIZES     e.g.  matmul M=4096,N=4096,K=4096

Prints one JSON object with "median_ms" (CUDA events, median of ITERS runs
after a warm-up), the library and torch's version. OP: matmul (cuBLAS through
torch.mm: A is M x K, B is N x K, bf16 inputs, f32 output where torch allows
it, as the examples' @bench computes), softmax (torch.softmax over rows of
an M x N f32 matrix), attention / attention_causal (SDPA on B x H x S x D
bf16: the flash and cuDNN backends, each timed, the faster the figure), grouped_matmul (torch._grouped_mm, T x K by
E experts' K x N, equal groups), layer_norm / rms_norm (M x N f32), row_sum
(torch.sum over the rows of B x N) or transpose (M x N f32, copied). Inputs are uniform in [-1, 1]. Exit 1 with {"error"}
on anything else (no torch, no GPU, an unknown OP).
"""
import json
import os
import sys


def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(1)


def timings(f, iters, torch):
    """`iters` CUDA-event timings of f() in ms, sorted, after ten warm-up calls
    (tests/gpu/run_all.py times cuBLAS with it too)."""
    for _ in range(10):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times


def median_ms(f, iters, torch):
    times = timings(f, iters, torch)
    return times[len(times) // 2]


def main():
    if len(sys.argv) != 3:
        fail("usage: library_time.py OP M=..,N=..[,K=..]")
    op, text = sys.argv[1], sys.argv[2]
    try:
        sizes = {k: int(v) for k, v in (part.split("=", 1) for part in text.split(","))}
    except ValueError:
        fail("sizes must be NAME=INTEGER separated by commas: %r" % text)
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        fail("no torch: %s" % e)
    if not torch.cuda.is_available():
        fail("no CUDA device")
    iters = int(os.environ.get("ITERS", "50"))
    g = torch.Generator(device="cuda").manual_seed(1)
    variants = {}  # library name -> function, where one op has several (SDPA's backends)

    def uniform(*shape):
        return torch.rand(*shape, device="cuda", generator=g).mul_(2).sub_(1)

    if op == "matmul":
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        a, b = uniform(m, k).bfloat16(), uniform(n, k).bfloat16()
        library, output = "cuBLAS (torch.mm, bf16 in)", "f32"
        try:
            torch.mm(a, b.t(), out_dtype=torch.float32)

            def f():
                return torch.mm(a, b.t(), out_dtype=torch.float32)
        except Exception:  # noqa: BLE001  (older torch: bf16 output)
            output = "bf16"

            def f():
                return torch.mm(a, b.t())
    elif op == "softmax":
        x = uniform(sizes["M"], sizes["N"])
        library, output = "torch.softmax (f32)", "f32"

        def f():
            return torch.softmax(x, dim=1)
    elif op in ("attention", "attention_causal"):
        # SDPA's fastest backend that runs (flash, then cuDNN), both reported.
        b, h, s, d = sizes["B"], sizes["H"], sizes["S"], sizes["D"]
        q, k, v = (uniform(b, h, s, d).bfloat16() for _ in range(3))
        causal = op == "attention_causal"
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backends = {}
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION),
                              ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                backends[name] = backend
            except Exception:  # noqa: BLE001  (a backend this torch or GPU lacks)
                pass
        if not backends:
            fail("no SDPA backend (flash, cuDNN) runs here")
        # Each backend timed; the fastest is the figure, all are reported.
        variants = {}
        for name, backend in backends.items():
            def run(backend=backend):
                with sdpa_kernel(backend):
                    return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            variants["torch SDPA (%s backend, bf16)" % name] = run
        output = "bf16"
    elif op == "grouped_matmul":
        # torch._grouped_mm: X (T x K) by each expert's W^T (E x K x N), 8 equal groups.
        t, n, k, e = sizes["T"], sizes["N"], sizes["K"], sizes["E"]
        x = uniform(t, k).bfloat16()
        w = uniform(e, n, k).bfloat16().transpose(1, 2)
        offs = torch.arange(1, e + 1, device="cuda", dtype=torch.int32) * (t // e)
        library, output = "torch._grouped_mm (bf16)", "bf16"

        def f():
            return torch._grouped_mm(x, w, offs=offs)
    elif op in ("layer_norm", "rms_norm"):
        x, w, bias = uniform(sizes["M"], sizes["N"]), uniform(sizes["N"]), uniform(sizes["N"])
        library, output = "torch.nn.functional.%s (f32)" % op, "f32"

        def f():
            if op == "layer_norm":
                return torch.nn.functional.layer_norm(x, (sizes["N"],), w, bias, eps=1e-5)
            return torch.nn.functional.rms_norm(x, (sizes["N"],), w, eps=1e-5)
    elif op == "row_sum":
        x = uniform(sizes["B"], sizes["N"])
        library, output = "torch.sum over rows (f32)", "f32"

        def f():
            return torch.sum(x, dim=1)
    elif op == "transpose":
        x = uniform(sizes["M"], sizes["N"])
        library, output = "torch .t().contiguous() (f32)", "f32"

        def f():
            return x.t().contiguous()
    else:
        fail("unknown operation %r (matmul, softmax, attention, attention_causal, grouped_matmul, "
             "layer_norm, rms_norm, row_sum, transpose)" % op)
    if not variants:
        variants = {library: f}
    results = {name: median_ms(g, iters, torch) for name, g in variants.items()}
    library = min(results, key=results.get)
    print(json.dumps({"median_ms": results[library], "library": library, "output": output,
                      "variants": results, "sizes": sizes, "torch": torch.__version__}))

if __name__ == "__main__":
    main()
