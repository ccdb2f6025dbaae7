"""The driver of tests/gpu/run_all.sh (see there). Python 3 standard library,
plus PyTorch for the cuBLAS figures."""

import datetime
import json
import os
import re
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, LIBRARY  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from library_time import timings  # noqa: E402  (one timing loop for every library figure)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RUNNER = os.path.join(ROOT, "codegen", "runner", "argus-runner")
ARTIFACTS = os.environ.get("ARGUS_GPU_ARTIFACTS", os.path.join(ROOT, "tests", "gpu", "artifacts"))
TINY = os.path.join(ROOT, "tests", "runner", "fixtures", "tiny")
OUT = os.environ.get("OUT") or os.path.join(ROOT, "gpu-results")
ITERS = os.environ.get("ITERS", "100")
ONLY = os.environ.get("ONLY", "")
CASE_TIMEOUT = 360


def artifact_dir(name):
    return TINY if name == "tiny" else os.path.join(ARTIFACTS, name)


def runner_cache(name):
    """Where the runner built with artifact `name` is kept: one build per
    artifact directory, not per name. Two artifact sets holding an example of
    the same name (an A/B comparison) each keep their build: one shared cache
    once ran the first set's kernel for both (argus-runner now rebuilds on a
    change of content, so a shared one would only rebuild at every switch)."""
    d = os.path.realpath(artifact_dir(name))
    return os.path.join("/tmp", "argus-runner-build", "%s-%08x" % (name, zlib.crc32(d.encode())))


def sh(cmd, timeout=60):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return "(%s)" % e


def build(name):
    """Builds argus-runner with one artifact; returns (name, ok, message, seconds)."""
    start = time.time()
    d = artifact_dir(name)
    if not os.path.isfile(os.path.join(d, "kernels.cu")):
        return name, False, "no artifact at %s (run tests/gpu/prepare.sh here and carry tests/gpu/artifacts)" % d, 0.0
    env = dict(os.environ)
    env.setdefault("ARGUS_RUNNER_CACHE", runner_cache(name))
    p = subprocess.run([RUNNER, d, "--build-only"], capture_output=True, text=True, env=env, timeout=900)
    msg = p.stdout.strip() if p.returncode == 0 else (p.stdout + p.stderr)[-3000:]
    return name, p.returncode == 0, msg, time.time() - start


def run_case(case):
    name, kernel, sizes, expect = case[:4]
    extra = list(case[4]) if len(case) > 4 else []
    args = [RUNNER, artifact_dir(name), "--kernel", kernel, "--size", sizes, "--iters", ITERS,
            "--timeout-s", str(CASE_TIMEOUT - 30)] + extra
    if expect == "refuse":
        args += ["--expect-refusal", "--no-timing"]
    env = dict(os.environ)
    env.setdefault("ARGUS_RUNNER_CACHE", runner_cache(name))
    start = time.time()
    try:
        p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=CASE_TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = -9, (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "killed"
    seconds = time.time() - start
    try:
        result = json.loads(out)
    except ValueError:
        result = {"error": "the runner printed no JSON: " + out[-500:], "stage": "driver"}
    if expect == "ok":
        passed = rc == 0 and result.get("correct") is True
    elif expect == "refuse":
        passed = rc == 0 and result.get("refused") is True
    else:  # "wrong": the runner must catch the planted bug
        passed = rc == 1 and result.get("correct") is False
    return {"artifact": name, "kernel": kernel, "sizes": sizes, "expect": expect, "passed": passed,
            "exit_code": rc, "seconds": round(seconds, 2), "result": result, "stderr": err[-2000:]}


def parse_gemm(sizes):
    # M, N, K and any further integers (a persistent kernel's block count P)
    m = re.fullmatch(r"M=(\d+),N=(\d+),K=(\d+)(?:,[A-Za-z_]\w*=\d+)*", sizes)
    return tuple(int(x) for x in m.groups()) if m else None


def cublas_times(shapes):
    """Median ms of torch.mm on bf16 inputs (A: M x K, B: N x K, C = A B^T) per shape."""
    out = {}
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        return {"error": "no torch: %s" % e}
    for (m, n, k) in shapes:
        try:
            g = torch.Generator(device="cuda").manual_seed(1)
            a = torch.rand(m, k, device="cuda", dtype=torch.float32, generator=g).mul_(2).sub_(1).bfloat16()
            b = torch.rand(n, k, device="cuda", dtype=torch.float32, generator=g).mul_(2).sub_(1).bfloat16()
            out_dtype = "f32"
            try:
                def f():
                    return torch.mm(a, b.t(), out_dtype=torch.float32)
                f()
            except Exception:  # noqa: BLE001  (older torch: bf16 output)
                out_dtype = "bf16"

                def f():
                    return torch.mm(a, b.t())
            times = timings(f, int(ITERS), torch)
            med = times[len(times) // 2]
            out["%dx%dx%d" % (m, n, k)] = {"median_ms": med, "min_ms": times[0],
                                           "tflops": 2.0 * m * n * k / (med * 1e-3) / 1e12,
                                           "output": out_dtype, "torch": torch.__version__}
            del a, b
            torch.cuda.empty_cache()
        except Exception as e:  # noqa: BLE001
            out["%dx%dx%d" % (m, n, k)] = {"error": str(e)}
    return out


def library_time(op, sizes):
    """bench/library_time.py's answer for one operation and size set (a dict)."""
    cmd = [sys.executable, os.path.join(ROOT, "bench", "library_time.py"), op, sizes]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
        return json.loads(out.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return {"error": str(e)}


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-"


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = [c for c in CASES if not ONLY or ONLY in c[0] or ONLY in c[1]]
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    env_info = {
        "date": started,
        "gpu": sh("nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader"),
        "nvcc": sh("nvcc --version | tail -n 2 | head -n 1") or sh("/usr/local/cuda/bin/nvcc --version | tail -n 2 | head -n 1"),
        "iters": ITERS,
    }
    print("argus GPU test: %s, %s" % (env_info["gpu"], env_info["nvcc"]), flush=True)

    names = sorted({c[0] for c in cases})
    with ThreadPoolExecutor(max_workers=min(8, len(names) or 1)) as pool:
        builds = {name: (ok, msg, secs) for name, ok, msg, secs in pool.map(build, names)}
    for name in names:
        ok, msg, secs = builds[name]
        print("build %-16s %s (%.0f s)%s" % (name, "ok" if ok else "FAILED", secs,
                                            "" if ok else "\n" + msg), flush=True)

    # Each case's result (with its library's figure, timed right after it) is
    # appended to $OUT/cases.jsonl as it lands, so a run cut off by a time
    # limit still brings back what it measured.
    results = []
    cublas = {}
    library = {}  # (op, sizes) -> bench/library_time.py's answer, timed once
    log = open(os.path.join(OUT, "cases.jsonl"), "w")
    for case in cases:
        if not builds[case[0]][0]:
            r = {"artifact": case[0], "kernel": case[1], "sizes": case[2], "expect": case[3],
                 "passed": False, "exit_code": None, "result": {"error": "build failed", "stage": "build"}}
        else:
            r = run_case(case)
        results.append(r)
        shape = parse_gemm(r["sizes"])
        if r["expect"] == "ok" and r["artifact"] != "tiny" and shape:
            key = "%dx%dx%d" % shape
            if key not in cublas:
                cublas.update(cublas_times([shape]))
            r["cublas"] = cublas.get(key)
        entry = LIBRARY.get((r["artifact"], r["kernel"]))
        if entry and r["expect"] == "ok":
            op, extra = entry(r["sizes"]) if callable(entry) else entry
            sizes = r["sizes"] + ("," + extra if extra else "")
            if (op, sizes) not in library:
                library[(op, sizes)] = library_time(op, sizes)
            r["library"] = library[(op, sizes)]
        log.write(json.dumps(r) + "\n")
        log.flush()
        res = r["result"]
        print("%-4s %-16s %-16s %-22s %-7s %s" % ("ok" if r["passed"] else "FAIL", r["artifact"], r["kernel"],
                                                 r["sizes"], r["expect"],
                                                 res.get("error") or res.get("why") or res.get("refusal") or ""),
              flush=True)
    log.close()

    header = ["", "artifact", "kernel", "sizes", "expect", "correct", "error", "median ms", "rate", "% peak",
              "library ms", "cuBLAS TF/s", "vs library"]
    rows = [header]
    for r in results:
        res = r["result"]
        rate = "-"
        if isinstance(res.get("tflops"), (int, float)):
            rate = "%.1f TF/s" % res["tflops"]
        elif isinstance(res.get("gbps"), (int, float)):
            rate = "%.0f GB/s" % res["gbps"]
        cb = {}
        g = parse_gemm(r["sizes"])
        if g and r["artifact"] != "tiny" and r["expect"] == "ok" and isinstance(cublas, dict):
            cb = cublas.get("%dx%dx%d" % g, {})
        elif isinstance(r.get("library"), dict) and "median_ms" in r["library"]:
            cb = {"median_ms": float(r["library"]["median_ms"])}
        vs = "-"
        if isinstance(cb.get("median_ms"), float) and isinstance(res.get("median_ms"), (int, float)) and res["median_ms"] > 0:
            vs = "%.1f%%" % (100.0 * cb["median_ms"] / res["median_ms"])
        correct = "refused" if res.get("refused") else ("yes" if res.get("correct") else ("no" if "correct" in res else "ERR"))
        rows.append(["ok" if r["passed"] else "FAIL", r["artifact"], r["kernel"], r["sizes"], r["expect"], correct,
                     fmt(res.get("error"), ".2e"), fmt(res.get("median_ms"), ".4f"), rate,
                     fmt(100 * res["peak_fraction"], ".1f") if isinstance(res.get("peak_fraction"), (int, float)) else "-",
                     fmt(cb.get("median_ms"), ".4f"), fmt(cb.get("tflops"), ".1f"), vs])
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(header))]
    table = "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)
    failed = [r for r in results if not r["passed"]]
    summary = "%d cases, %d passed, %d failed" % (len(results), len(results) - len(failed), len(failed))
    text = "argus GPU test %s\nGPU: %s\nnvcc: %s\n\n%s\n\n%s\n" % (started, env_info["gpu"], env_info["nvcc"], table, summary)
    with open(os.path.join(OUT, "table.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump({"environment": env_info, "builds": {k: {"ok": v[0], "message": v[1], "seconds": v[2]}
                                                       for k, v in builds.items()},
                   "cases": results, "cublas": cublas,
                   "library": [{"op": k[0], "sizes": k[1], **v} for k, v in library.items()]},
                  f, indent=1)
    print("\n" + text, flush=True)
    return 0 if not failed and cases else 1


if __name__ == "__main__":
    sys.exit(main())
