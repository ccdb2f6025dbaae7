#!/bin/sh
# tests/gpu/run_all.sh: the GPU test of issue 6. Run ON the GPU host, from the
# repository root, after tests/gpu/prepare.sh has compiled the examples here:
#
#   here:        bash tests/gpu/prepare.sh            # argus compile --target sm90 -> tests/gpu/artifacts/
#   device tool: run(command="bash tests/gpu/run_all.sh", carry=["tests/gpu/artifacts"])
#
# A/B: two artifact sets with an example of the same name (ARGUS_GPU_ARTIFACTS=
# build/gpu-a, then build/gpu-b) get one runner build each (run_all.py, runner_cache).
#
# It builds argus-runner with each artifact (nvcc there), runs every sm90
# example at the sizes in tests/gpu/cases.py (tile multiples, sizes that are
# not tile multiples where the assume allows them, and sizes the assume
# forbids, which the launcher must refuse), runs the runner's own test
# artifact (tests/runner/fixtures/tiny: correct kernels, refused sizes, and
# two planted bugs the runner must catch), times cuBLAS through PyTorch at the
# GEMM sizes and the other workloads' libraries (SDPA, torch._grouped_mm,
# norms, sums, copies: cases.LIBRARY through bench/library_time.py), prints a
# table and writes $OUT/results.json and $OUT/table.txt.
# Exit status 0 when every case had its expected outcome.
#
# Environment: OUT (default ./gpu-results), ARGUS_GPU_ARTIFACTS (default
# tests/gpu/artifacts), ITERS (timed runs per case, default 100), ONLY (a
# substring: run only the cases whose example or kernel contains it).
exec python3 -u "$(dirname "$0")/run_all.py" "$@"
