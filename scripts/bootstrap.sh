#!/usr/bin/env bash
# Installs whatever Kiln needs from Debian's archive and nothing else.
# Idempotent and quiet when everything is already present; both README
# commands and CI call it. PyTorch (about 600 MB with its dependencies) is
# in the default list because the ONNX model tests export their models
# with it. KILN_BOOTSTRAP_EXTRA adds package groups:
#   bench - OpenBLAS, the anchor of bench/matmul_cpu; Node.js and ONNX
#           Runtime (npm onnxruntime-node, into .deps/npm of this checkout),
#           an anchor of bench/models
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
ort_version=1.30.0
want_ort=0

packages=(
  build-essential cmake pkg-config git
  llvm-19-dev llvm-19-tools lld-19 clang-19 libclang-rt-19-dev mlir-19-tools
  libzstd-dev check flatbuffers-compiler
  libprotobuf-c-dev protobuf-c-compiler
  python3-numpy python3-onnx python3-torch python3-torchvision valgrind
)
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
    bench)
      packages+=(libopenblas-dev)
      # Debian's nodejs, or one already installed from elsewhere (which
      # may bring its own npm and conflict with Debian's npm package).
      command -v node >/dev/null || packages+=(nodejs)
      command -v npm >/dev/null || packages+=(npm)
      want_ort=1 ;;
    *) echo "bootstrap: unknown package group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done

# ONNX Runtime's CPU library ships inside the npm package; its install
# script only fetches GPU binaries from elsewhere, so it is skipped.
install_ort() {
  [ "$want_ort" = 1 ] || return 0
  local dir="$root/.deps/npm"
  grep -qs "\"version\": \"$ort_version\"" \
    "$dir/node_modules/onnxruntime-node/package.json" && return 0
  echo "bootstrap: npm install onnxruntime-node@$ort_version into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --silent \
    "onnxruntime-node@$ort_version" >/dev/null
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
