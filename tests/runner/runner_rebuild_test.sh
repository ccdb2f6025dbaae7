#!/usr/bin/env bash
# tests/runner/runner_rebuild_test.sh: argus-runner rebuilds when what it is
# built from changes by content, not only when a file is newer than its binary.
# Two artifacts of one name sharing a build cache (A/B sets carried to a GPU
# host), the second's files older than the first's build, must get two
# builds; an unchanged artifact none. A fake nvcc (ARGUS_NVCC) stands in for
# the compiler: it logs each build and writes a "runner" that prints the
# kernels.cu it was built with. No GPU, no CUDA.
set -u
runner=${1:?usage: runner_rebuild_test.sh path/to/argus-runner}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/nvcc" <<'FAKE'
#!/bin/sh
out= kernels=
while [ $# -gt 0 ]; do
  case "$1" in
  -o) out=$2; shift ;;
  *kernels.cu) kernels=$1 ;;
  esac
  shift
done
echo build >>"$FAKE_NVCC_LOG"
cp "$kernels" "$out.built-from"
printf '#!/bin/sh\ncat "%s"\n' "$out.built-from" >"$out"
chmod +x "$out"
FAKE
chmod +x "$tmp/nvcc"
mkdir -p "$tmp/a/ex" "$tmp/b/ex"
echo '// kernel A' >"$tmp/a/ex/kernels.cu"
echo '// kernel B' >"$tmp/b/ex/kernels.cu"
touch -t 202001010000 "$tmp/b/ex/kernels.cu" # compiled long before A's build
export ARGUS_NVCC="$tmp/nvcc" ARGUS_RUNNER_CACHE="$tmp/cache" FAKE_NVCC_LOG="$tmp/log"
fail() { echo "FAIL: $*"; exit 1; }
bin=$("$runner" "$tmp/a/ex" --build-only) || fail "building with A: $bin"
[ "$("$bin")" = '// kernel A' ] || fail "the runner built with A does not run A"
"$runner" "$tmp/b/ex" --build-only >/dev/null || fail "building with B"
[ "$("$bin")" = '// kernel B' ] || fail "B's files are older than A's build and B's run used A's kernel"
"$runner" "$tmp/b/ex" --build-only >/dev/null || fail "building with B again"
[ "$(wc -l <"$tmp/log")" -eq 2 ] || fail "expected 2 builds (A, B; B again reuses), got $(wc -l <"$tmp/log")"
ARGUS_NVCC_FLAGS=-DX "$runner" "$tmp/b/ex" --build-only >/dev/null || fail "building with flags"
[ "$(wc -l <"$tmp/log")" -eq 3 ] || fail "other nvcc flags did not rebuild"
echo "ok: rebuilt on a change of content (older files included) or flags, reused otherwise"
