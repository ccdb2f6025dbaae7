#!/usr/bin/env python3
"""tests/gpu/run_all_test.py: run_all.py's runner builds, without a GPU.

Two artifact sets holding an example of the same name (an A/B comparison:
ARGUS_GPU_ARTIFACTS=build/gpu-a, then build/gpu-b) must get two runner
builds. With one build per example name, the runner (which then rebuilt
only when its sources were newer than its binary) ran the first set's kernel
for both, and a comparison measured a kernel against itself."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cache_of(artifacts, name):
    code = "import run_all; print(run_all.runner_cache(%r))" % name
    env = dict(os.environ, ARGUS_GPU_ARTIFACTS=artifacts)
    return subprocess.run([sys.executable, "-c", code], cwd=HERE, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def main():
    with tempfile.TemporaryDirectory() as root:
        a, b = os.path.join(root, "gpu-a"), os.path.join(root, "gpu-b")
        name = "flash_attn_fwd_ws_sm90"
        ca, cb = cache_of(a, name), cache_of(b, name)
        failures = []
        if ca == cb:
            failures.append("two artifact sets share the runner build %s" % ca)
        if cache_of(a, name) != ca:
            failures.append("one artifact set got two different runner builds")
        if cache_of(a, "gemm_naive") == ca:
            failures.append("two examples of one set share a runner build")
        if name not in os.path.basename(ca):
            failures.append("the build directory %s does not name the example" % ca)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok: one runner build per artifact directory (%s, %s)" % (ca, cb))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
