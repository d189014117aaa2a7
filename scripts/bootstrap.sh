#!/usr/bin/env bash
# Installs whatever Kiln needs from Debian's archive and nothing else.
# Idempotent and quiet when everything is already present; both README
# commands and CI call it. PyTorch (about 600 MB with its dependencies) is
# in the default list because the ONNX model tests export their models
# with it. KILN_BOOTSTRAP_EXTRA adds package groups:
#   bench - OpenBLAS, the anchor of bench/matmul_cpu
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  llvm-19-dev llvm-19-tools lld-19 clang-19 libclang-rt-19-dev mlir-19-tools
  libzstd-dev check flatbuffers-compiler
  libprotobuf-c-dev protobuf-c-compiler
  python3-numpy python3-onnx python3-torch python3-torchvision valgrind
)
for group in ${KILN_BOOTSTRAP_EXTRA:-}; do
  case "$group" in
    onnx) ;;  # kept for old command lines: now in the default list
    bench) packages+=(libopenblas-dev) ;;
    *) echo "bootstrap: unknown package group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
