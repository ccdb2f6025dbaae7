#!/usr/bin/env python3
"""The reference library's time for `argus agent eval --library`.

    python3 bench/library_time.py OP SIZES     e.g.  matmul M=4096,N=4096,K=4096

Prints one JSON object with "median_ms" (CUDA events, median of ITERS runs
after a warm-up), the library and torch's version. OP: matmul (cuBLAS through
torch.mm: A is M x K, B is N x K, bf16 inputs, f32 output where torch allows
it, as the examples' @bench computes) or softmax (torch.softmax over rows of
an M x N f32 matrix). Inputs are uniform in [-1, 1]. Exit 1 with {"error"}
on anything else (no torch, no GPU, an unknown OP).
"""
import json
import os
import sys


def fail(message):
    print(json.dumps({"error": message}))
    sys.exit(1)


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
    else:
        fail("unknown operation %r (matmul, softmax)" % op)
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
    print(json.dumps({"median_ms": times[len(times) // 2], "library": library, "output": output,
                      "sizes": sizes, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
