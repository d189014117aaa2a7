#!/usr/bin/env bash
# Installs whatever Kiln needs from Debian's archive, plus ONNX Runtime
# from npm, and nothing else. Idempotent and quiet when everything is
# already present; both README commands and CI call it. PyTorch (about
# 600 MB with its dependencies) is in the default list because the ONNX
# model tests export their models with it. ONNX Runtime (npm
# onnxruntime-node, run by Debian's Node.js) is the numeric reference of
# tools/kiln-compare and of the tests and benches built on
# tools/ort/kiln_ort.py, which finds it where this installs it:
# .deps/npm/node_modules of this checkout. KILN_BOOTSTRAP_EXTRA adds
# package groups:
#   bench - OpenBLAS, the anchor of bench/matmul_cpu; zstd, which packs
#           bench/gpu's bundle for a GPU machine
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
ort_version=1.30.0

packages=(
  build-essential cmake pkg-config git
  llvm-19-dev llvm-19-tools lld-19 clang-19 libclang-rt-19-dev mlir-19-tools
  libzstd-dev check flatbuffers-compiler
  libprotobuf-c-dev protobuf-c-compiler
  python3-numpy python3-onnx python3-torch python3-torchvision valgrind
)
# Debian's nodejs and npm, unless a node/npm from elsewhere is already on
# PATH (such a node brings its own npm, which conflicts with Debian's).
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
# Deploying to devices (scripts/cross-build.sh, ctest -L aarch64 / -L
# riscv64): Debian's cross compilers, QEMU user mode to run their programs,
# and the arm64 libzstd through multiarch (Debian 12 has no riscv64 port).
foreign=()
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-riscv64-linux-gnu
             libc6-dev-riscv64-cross qemu-user-static libzstd-dev:arm64)
  foreign=(arm64)
fi
for group in ${KILN_BOOTSTRAP_EXTRA:-}; do
  case "$group" in
    onnx) ;;  # kept for old command lines: now in the default list
    bench) packages+=(libopenblas-dev zstd) ;;
    *) echo "bootstrap: unknown package group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done

# ONNX Runtime's CPU library ships inside the npm package; its install
# script only fetches GPU binaries from elsewhere, so it is skipped. It is
# installed into a staging folder and moved into place whole, so an
# interrupted or failed install never passes for an installed one, and
# the version check makes a second run instant.
install_ort() {
  local dir="$root/.deps/npm"
  # One the user provides (kiln_ort.py looks there first) is used as it is.
  [ -n "${KILN_ORT_MODULES:-}" ] && [ -f "$KILN_ORT_MODULES/onnxruntime-node/package.json" ] &&
    return 0
  grep -qs "\"version\": \"$ort_version\"" \
    "$dir/node_modules/onnxruntime-node/package.json" && return 0
  echo "bootstrap: npm install onnxruntime-node@$ort_version into $dir" >&2
  local stage="$dir.staging" log
  rm -rf "$stage"
  mkdir -p "$stage"
  log="$stage.log"
  # A bounded wait: npm's defaults retry an unreachable registry for
  # minutes. --prefer-offline installs from npm's cache when it can.
  if ! npm install --prefix "$stage" --ignore-scripts --no-audit --no-fund \
       --prefer-offline --fetch-retries=1 --fetch-timeout=60000 \
       "onnxruntime-node@$ort_version" >"$log" 2>&1; then
    {
      echo "bootstrap: could not install onnxruntime-node@$ort_version from npm"
      echo "  (registry: $(npm config get registry 2>/dev/null || echo '?')); npm said:"
      { grep '^npm error' "$log" || tail -n 8 "$log"; } | head -n 6 | sed 's/^/    /'
      echo "  tools/kiln-compare and the tests that use ONNX Runtime as their"
      echo "  reference need it. Rerun scripts/bootstrap.sh where npm can reach"
      echo "  its registry (set npm's proxy/registry if needed), or point"
      echo "  KILN_ORT_MODULES at a node_modules folder holding onnxruntime-node."
    } >&2
    rm -rf "$stage" "$log"
    return 1
  fi
  rm -rf "$dir" "$log"
  mv "$stage" "$dir"
}

if [ ${#missing[@]} -eq 0 ]; then
  install_ort
  exit 0
fi

echo "bootstrap: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
for a in "${foreign[@]}"; do
  dpkg --print-foreign-architectures | grep -qx "$a" || $sudo dpkg --add-architecture "$a"
done
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_ort
