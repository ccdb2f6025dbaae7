#!/bin/sh
# tests/gpu/prepare.sh: run HERE (no GPU needed). Compiles every sm90 example
# into tests/gpu/artifacts/NAME/ with `argus compile --target sm90`, for
# tests/gpu/run_all.sh on the GPU host (carry "tests/gpu/artifacts").
# ARGUS: the argus binary (default build/cli/argus, then build-*/cli/argus).
set -u
cd "$(dirname "$0")/../.." || exit 2
argus=${ARGUS:-}
if [ -z "$argus" ]; then
  for candidate in build/cli/argus build-*/cli/argus; do
    [ -x "$candidate" ] && argus=$candidate && break
  done
fi
if [ -z "$argus" ] || [ ! -x "$argus" ]; then
  echo "prepare.sh: no argus binary (build it or set ARGUS)" >&2
  exit 2
fi
out=tests/gpu/artifacts
mkdir -p "$out"
status=0
for f in examples/*.argus; do
  name=$(basename "$f" .argus)
  case "$name" in *gfx942*) continue ;; esac
  rm -rf "${out:?}/$name"
  if "$argus" compile "$f" --target sm90 -o "$out/$name"; then
    echo "prepare.sh: $f -> $out/$name"
  else
    echo "prepare.sh: argus compile failed for $f" >&2
    status=1
  fi
done
du -sh "$out" 2>/dev/null
exit $status
