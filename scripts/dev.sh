#!/usr/bin/env bash
# Set up, build and test Argus on a fresh Debian 12 machine.
#
#   bash scripts/dev.sh demo   install what is missing, build Release into build/,
#                              check examples/gemm_tiled.argus and print its diagnostics
#   bash scripts/dev.sh test   install, build Release into build/ (without the per-library
#                              unit tests) and run ctest, then build everything once more
#                              with clang-19, AddressSanitizer + UBSan and libFuzzer's
#                              instrumentation (-O1) into build-san/, run ctest there (every
#                              test; the checker's extra sweeps over a third of the corpus),
#                              and run the two libFuzzer targets of that same tree
#                              for ARGUS_FUZZ_SECONDS (default 60) each, side by side, from
#                              their seed corpora
#                              (this is what CI runs: .ci/run)
#   bash scripts/dev.sh fuzz   only the fuzz part of `test` (a fuzz-only tree, build-fuzz/)
#
# Packages come from apt (with sudo when not root; `apt-get update` only when
# something is missing), the tree-sitter grammar sources from npm
# (`npm ci --ignore-scripts`: nothing from npm runs). ARGUS_JOBS sets the build
# parallelism (default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="${ARGUS_JOBS:-2}"
PACKAGES=(libtree-sitter-dev nlohmann-json3-dev libz3-dev libgtest-dev cmake ninja-build g++
          pkg-config llvm-19-dev libclang-19-dev liblld-19-dev clang-19 libclang-rt-19-dev neovim
          libcpp-httplib-dev slurmctld slurmd slurm-client munge hipcc libamdhip64-dev)

step() { printf '\n==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  else
    sudo "$@"
  fi
}

install_packages() {
  local missing=() package
  for package in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$package")
    fi
  done
  # Debian's Node.js only when there is no npm at all (a NodeSource one is fine).
  if ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
  fi
  if [ "${#missing[@]}" -eq 0 ]; then
    step "apt packages: all present"
    return
  fi
  step "installing ${missing[*]}"
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

install_grammar() {
  if [ ! -f package-lock.json ]; then
    step "npm install --ignore-scripts (creating package-lock.json)"
    npm install --ignore-scripts --no-audit --no-fund
  fi
  step "npm ci --ignore-scripts"
  npm ci --ignore-scripts --no-audit --no-fund
  # The VS Code extension's build and test tools (tests/vscode).
  step "npm ci --ignore-scripts (editors/vscode)"
  (cd editors/vscode && npm ci --ignore-scripts --no-audit --no-fund)
}

# configure DIR BUILD_TYPE [CMAKE ARGS...]
configure() {
  local dir="$1" type="$2"
  shift 2
  step "configure $dir ($type${*:+ $*})"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@"
}

# build DIR [TARGET]
build() {
  step "build $1${2:+ ($2)} with -j$JOBS"
  cmake --build "$1" -j "$JOBS" ${2:+--target "$2"}
}

run_tests() {
  step "ctest in $1"
  ctest --test-dir "$1" --output-on-failure -j "$JOBS"
}

demo() {
  configure build Release
  build build argus
  step "build/cli/argus check examples/gemm_tiled.argus"
  local status=0
  build/cli/argus check examples/gemm_tiled.argus || status=$?
  case "$status" in
  0) echo "examples/gemm_tiled.argus: no errors (exit status 0)" ;;
  *) echo "examples/gemm_tiled.argus: exit status $status" ;;
  esac
  return "$status"
}

# run_fuzzer DIR NAME: argus_NAME_fuzzer of the build folder DIR from its seeds and the
# inputs that once failed (fuzz/regressions/NAME, run first) for FUZZ_SECONDS; new inputs go
# to DIR/fuzz/corpus/NAME, a crash or timeout to DIR/fuzz/artifacts/ (and fails).
run_fuzzer() {
  local dir="$1/fuzz" name="$2" seconds="${ARGUS_FUZZ_SECONDS:-60}"
  local log="$dir/$name-fuzz.log"
  mkdir -p "$dir/corpus/$name" "$dir/artifacts"
  step "fuzz $name for ${seconds}s (log: $log)"
  local status=0
  # A fixed seed (ARGUS_FUZZ_SEED, default 1) so that CI mutates the same way on every run and
  # a failure replays; ARGUS_FUZZ_SEED=0 lets libFuzzer draw one (for long runs by hand).
  "$dir/argus_${name}_fuzzer" -seed="${ARGUS_FUZZ_SEED:-1}" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=4096 \
    -dict="fuzz/$name.dict" -artifact_prefix="$dir/artifacts/$name-" -print_final_stats=1 \
    "$dir/corpus/$name" "$dir/seeds/$name" "fuzz/regressions/$name" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 80 "$log"
    # The artifacts stay on the machine that ran this: print the inputs so that a CI
    # failure can be replayed elsewhere (base64 -d > input; argus_NAME_fuzzer input).
    local artifact
    for artifact in "$dir/artifacts/$name-"*; do
      [ -f "$artifact" ] || continue
      echo "--- $artifact (base64):"
      head -c 65536 "$artifact" | base64 -w 0
      echo
    done
    echo "argus_${name}_fuzzer failed (exit status $status); the input is in $dir/artifacts/" >&2
    return "$status"
  fi
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov: ' "$log" | tail -n 4
}

# run_fuzzers DIR: both fuzz targets at once, one core each (the same fuzzing time per target
# in half the wall time: CI has two cores); the output of each after both end.
run_fuzzers() {
  local dir="$1" lsp_status=0 check_status=0 lsp_pid check_pid
  mkdir -p "$dir/fuzz"
  run_fuzzer "$dir" lsp >"$dir/fuzz/lsp-run.txt" 2>&1 &
  lsp_pid=$!
  run_fuzzer "$dir" check >"$dir/fuzz/check-run.txt" 2>&1 &
  check_pid=$!
  wait "$lsp_pid" || lsp_status=$?
  wait "$check_pid" || check_status=$?
  cat "$dir/fuzz/lsp-run.txt" "$dir/fuzz/check-run.txt"
  [ "$lsp_status" -eq 0 ] && [ "$check_status" -eq 0 ]
}

# The sanitizer build: clang-19 with AddressSanitizer, UBSan and libFuzzer's coverage
# instrumentation at -O1 (-g1: line tables for the reports). Asserts stay on (a Debug build).
# -O1 rather than -O0: the checker's tests run the interpreter over every kernel, and at -O0
# under ASan that was most of CI's time.
SANITIZER_FLAGS=(-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19
                 "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1")

fuzz_all() {
  configure build-fuzz Debug -DARGUS_FUZZ=ON -DARGUS_BUILD_TESTS=OFF -DARGUS_BUILD_BENCH=OFF \
    "${SANITIZER_FLAGS[@]}"
  build build-fuzz argus_fuzzers
  run_fuzzers build-fuzz
}

test_all() {
  local start=$SECONDS
  # The Release tree: the product as users build it (g++ -O3) and the tests that observe it:
  # the argus binary end to end, generated code through the host compiler, every checker
  # sweep over every file. The per-library unit tests run once, in the sanitizer tree.
  configure build Release -DARGUS_LIBRARY_TESTS=OFF
  build build
  run_tests build
  local release=$((SECONDS - start))
  start=$SECONDS
  # One sanitizer tree for the unit tests and the fuzzers: the libraries are built with
  # sanitizers once (they used to be built twice, with g++ for the tests and clang for the
  # fuzzers). libFuzzer's instrumentation is inert in the test binaries.
  configure build-san Debug -DARGUS_SANITIZE=ON -DARGUS_FUZZ=ON -DARGUS_BUILD_BENCH=OFF \
    "${SANITIZER_FLAGS[@]}"
  build build-san
  run_tests build-san
  local sanitizers=$((SECONDS - start))
  start=$SECONDS
  build build-san argus_fuzzers
  run_fuzzers build-san
  step "all tests passed (release ${release}s, sanitizers ${sanitizers}s, fuzz $((SECONDS - start))s)"
}

usage() {
  echo "usage: bash scripts/dev.sh demo|test|fuzz" >&2
  exit 2
}

[ "$#" -eq 1 ] || usage
case "$1" in
demo | test | fuzz) ;;
*) usage ;;
esac
total_start=$SECONDS
install_packages
install_grammar
case "$1" in
demo) demo ;;
fuzz) fuzz_all ;;
*) test_all ;;
esac
step "done in $((SECONDS - total_start))s"
