#!/bin/bash
# The agent's Slurm fan-out against a real single-node Slurm (issue 14,
# item 7): `argus agent optimize --jobs 2` with a runner template that runs
# each benchmark through `srun`. Passes when the loop finds the fixture's
# fastest block size, every benchmark ran as its own Slurm job, and two of
# them ran at the same time. Exit 77 (skipped, with the reason) where Slurm
# cannot start here: not root, or its packages missing.
# Usage: slurm_fanout_test.sh ARGUS_BINARY
set -u
argus=$1
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$(cd "$here/../fixtures" && pwd)
dir=$(mktemp -d /tmp/argus-slurm-XXXXXX) || exit 1
cleanup() {
  "$here/stop_slurm.sh" "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
conf=$("$here/start_slurm.sh" "$dir") || {
  status=$?
  echo "slurm_fanout_test: skipped: Slurm did not start (see above)"
  exit "$status"
}
export "${conf?}"
log=$dir/runner.log
# srun under a time limit: a client whose controller died would retry forever.
out=$("$argus" agent optimize "$fixtures/tunable_copy.argus" --kernel copy --budget 4 --jobs 2 \
  --emit-only --allow-narrower-sizes \
  --runner "timeout 120 srun --quiet -N1 -n1 sh $fixtures/tuning_runner.sh {artifact}" \
  --runner-arg --slow --runner-arg "$log" --out "$dir/out" 2>&1)
status=$?
fail() {
  echo "slurm_fanout_test: FAILED: $*"
  echo "--- argus agent optimize:"
  echo "$out"
  echo "--- runner log:"
  cat "$log" 2>/dev/null
  exit 1
}
[ "$status" = 0 ] || fail "argus agent optimize exited with $status"
case $out in *"best 1 ms, baseline 4 ms (4x)"*) ;; *) fail "the tuner did not find BLOCK 256" ;; esac
# "begin PID TIME JOB" / "end PID TIME JOB": one job per benchmark (the
# baseline and four steps), none outside Slurm.
jobs=$(awk '$1 == "begin" { print $4 }' "$log" | sort -u)
[ "$(awk '$1 == "begin"' "$log" | wc -l)" = 5 ] || fail "expected 5 benchmarks"
case $jobs in *none*) fail "a benchmark ran outside Slurm" ;; esac
[ "$(echo "$jobs" | wc -l)" = 5 ] || fail "expected 5 distinct Slurm jobs, got: $jobs"
# Two benchmarks overlapped: one began before another ended.
awk '$1 == "begin" { b[$2] = $3 } $1 == "end" { e[$2] = $3 }
     END { for (x in b) for (y in b) if (x < y && b[x] < e[y] && b[y] < e[x]) found = 1
           exit found ? 0 : 1 }' "$log" || fail "no two benchmarks ran at the same time"
echo "slurm_fanout_test: passed: 5 benchmarks in Slurm jobs $(echo $jobs), two at a time"
