#!/bin/sh
# bench/agent/run_gpu.sh PHASE OUT: the agent's offline tuner on the GPU host
# (issue 19), with the portable argus of tests/gpu/prepare.sh (run that here
# first; carry "tests/gpu/bin"). PHASE:
#   optimize  gemm_tiled (4096^3, 40 steps) and softmax (16384 x 4096, 16 steps)
#   eval      the task suite agent/tasks, its library times by bench/library_time.py
# Results (trajectories, reports, plots, eval.json) go to OUT.
set -u
phase=$1
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/tests/gpu/bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
argus=$root/tests/gpu/bin/argus
runner="$root/codegen/runner/argus-runner {artifact}"
jobs=${JOBS:-8}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
nvcc --version | tail -2 >>"$out/gpu.txt"
case $phase in
optimize)
  for spec in "gemm_tiled 40 M=4096,N=4096,K=4096 matmul" "softmax 16 M=16384,N=4096 softmax"; do
    set -- $spec
    kernel=$1 budget=$2 sizes=$3 op=$4
    start=$(date +%s)
    "$argus" agent optimize "examples/$kernel.argus" --kernel "$kernel" --offline \
      --budget "$budget" --jobs "$jobs" --emit-only --runner "$runner" \
      --runner-arg --kernel --runner-arg "$kernel" --runner-arg --size --runner-arg "$sizes" \
      --out "$out/$kernel" >"$out/$kernel.stdout" 2>"$out/$kernel.log"
    echo "$kernel: exit $? in $(($(date +%s) - start)) s" | tee -a "$out/summary.txt"
    tail -3 "$out/$kernel.log"
    cat "$out/$kernel.stdout"
    python3 bench/library_time.py "$op" "$sizes" | tee "$out/$kernel.library.json"
  done
  ;;
eval)
  start=$(date +%s)
  "$argus" agent eval agent/tasks --offline --jobs "$jobs" --emit-only --runner "$runner" \
    --budget "${BUDGET:-24}" --library "python3 $root/bench/library_time.py {op} {sizes}" \
    --out "$out/eval" >"$out/eval.stdout" 2>"$out/eval.log"
  echo "eval: exit $? in $(($(date +%s) - start)) s" | tee -a "$out/summary.txt"
  grep -E '^task|held out|library|failed' "$out/eval.log" | head -60
  cat "$out/eval.stdout"
  ;;
*)
  echo "usage: run_gpu.sh optimize|eval OUT" >&2
  exit 2
  ;;
esac
# One archive of everything (the device tool brings back a few files only).
tar -C "$out" -czf "$out.tar.gz" . && echo "archive: $out.tar.gz"
