#!/usr/bin/env bash
# Set up, build and test Argus on a fresh Debian 12 machine.
#
#   bash scripts/dev.sh demo   install what is missing, build Release into build/,
#                              check examples/gemm_tiled.argus and print its diagnostics
#   bash scripts/dev.sh test   install, build everything into build/ and run ctest, then
#                              build with AddressSanitizer + UBSan into build-asan/ and run
#                              ctest there too (this is what CI runs: .ci/run)
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
          pkg-config llvm-19-dev libclang-19-dev liblld-19-dev)

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

test_all() {
  local start=$SECONDS
  configure build Release
  build build
  run_tests build
  local release=$((SECONDS - start))
  start=$SECONDS
  configure build-asan Debug -DARGUS_SANITIZE=ON -DARGUS_BUILD_BENCH=OFF
  build build-asan
  run_tests build-asan
  step "all tests passed (release ${release}s, sanitizers $((SECONDS - start))s)"
}

usage() {
  echo "usage: bash scripts/dev.sh demo|test" >&2
  exit 2
}

[ "$#" -eq 1 ] || usage
case "$1" in
demo | test) ;;
*) usage ;;
esac
total_start=$SECONDS
install_packages
install_grammar
if [ "$1" = demo ]; then
  demo
else
  test_all
fi
step "done in $((SECONDS - total_start))s"
