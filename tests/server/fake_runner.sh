#!/bin/sh
# A stand-in for codegen/runner/argus-runner in tests without a GPU or nvcc:
# checks the artifact as the runner's "artifact" stage does and prints one
# result per @bench of bench.json in the runner's result format
# (docs/artifacts.md, "The runner").
#   fake_runner.sh ARTIFACT_DIR [--sleep S] [--wrong KERNEL] [WORDS...]
# --sleep waits first (time limits, cancellation); --wrong reports KERNEL as
# incorrect; other words are echoed in "device" so tests see what arrived.
artifact=$1
[ $# -gt 0 ] && shift
sleep_s=0
wrong=
words=
while [ $# -gt 0 ]; do
  case $1 in
  --sleep) sleep_s=$2; shift 2 ;;
  --wrong) wrong=$2; shift 2 ;;
  *) words="$words $1"; shift ;;
  esac
done
if [ ! -f "$artifact/meta.json" ] || [ ! -f "$artifact/bench.json" ]; then
  printf '{"error": "not an artifact directory: %s", "stage": "artifact"}\n' "$artifact"
  exit 1
fi
echo "fake runner: using $artifact" >&2
[ "$sleep_s" = 0 ] || sleep "$sleep_s"
kernels=$(sed -n 's/^ *"kernel": "\([A-Za-z_0-9]*\)",*$/\1/p' "$artifact/bench.json")
status=0
printf '['
separator=
for kernel in $kernels; do
  correct=true
  if [ "$kernel" = "$wrong" ]; then correct=false; status=1; fi
  printf '%s{"kernel": "%s", "sizes": {}, "correct": %s, "error": 0.001, "tolerance": 0.02, "median_ms": 1.5, "min_ms": 1.25, "runs": 100, "input_sets": 1, "tflops": 1.5, "peak_fraction": 0.002, "reference": "matmul", "device": "fake GPU%s"}' \
    "$separator" "$kernel" "$correct" "$words"
  separator=', '
done
printf ']\n'
exit $status
