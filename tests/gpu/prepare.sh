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
# compile FILE NAME: FILE into $out/NAME for sm90.
compile() {
  rm -rf "${out:?}/$2"
  if "$argus" compile "$1" --target sm90 -o "$out/$2"; then
    echo "prepare.sh: $1 -> $out/$2"
  else
    echo "prepare.sh: argus compile failed for $1" >&2
    status=1
  fi
}
for f in examples/*.argus; do
  name=$(basename "$f" .argus)
  case "$name" in *gfx942*) continue ;; esac
  compile "$f" "$name"
done
# The tuning variants (bench/variants/README.md) as v_NAME: tests/gpu/cases.py
# runs those it names (the FA3-style kernel at D = 64).
for f in bench/variants/*.argus; do
  compile "$f" "v_$(basename "$f" .argus)"
done
# A portable argus for `argus bench` and `argus agent` on the GPU host, which
# has none of our libraries:   run(command="PATH=/usr/local/cuda/bin:$PWD/codegen/runner:$PATH \
#   LD_LIBRARY_PATH=$PWD/tests/gpu/bin/lib tests/gpu/bin/argus bench examples/gemm_mma_sm90.argus",
#   carry=["tests/gpu/artifacts", "tests/gpu/bin"])
if [ "${ARGUS_GPU_STATIC:-1}" = 1 ]; then
  if cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DARGUS_STATIC=ON \
       -DARGUS_BUILD_TESTS=OFF -DARGUS_BUILD_BENCH=OFF >/dev/null &&
     cmake --build build-static --target argus >/dev/null; then
    mkdir -p tests/gpu/bin
    cp build-static/cli/argus tests/gpu/bin/argus
    strip tests/gpu/bin/argus 2>/dev/null || true
    ln -sf ../../../codegen/runner/argus-runner tests/gpu/bin/argus-runner
    # Z3 has no static archive on Debian: its shared library (and the
    # libstdc++ it needs) go beside the binary; run with
    # LD_LIBRARY_PATH=tests/gpu/bin/lib.
    mkdir -p tests/gpu/bin/lib
    for lib in libz3.so.4 libstdc++.so.6; do
      path=$(ldconfig -p | sed -n "s|.*$lib (libc6,x86-64) => ||p" | head -1)
      [ -n "$path" ] && cp -L "$path" tests/gpu/bin/lib/
    done
    echo "prepare.sh: static argus -> tests/gpu/bin/argus (libraries in tests/gpu/bin/lib)"
  else
    echo "prepare.sh: the static argus build failed (argus bench on the GPU host needs it)" >&2
    status=1
  fi
fi
du -sh "$out" 2>/dev/null
exit $status
