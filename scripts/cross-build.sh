#!/usr/bin/env bash
# Cross-builds Kiln's runtime side for a device: statically linked
# kiln-run and kiln-bench in build-ARCH/ (ARCH: aarch64, riscv64), through
# cmake/toolchain-ARCH.cmake with Debian's cross compiler. The compiler
# stays a host tool: compile models here with --target=llvm-cpu:ARCH.
# No CUDA; zstd when the target's libzstd is installed (Debian 12:
# libzstd-dev:arm64 through multiarch; none for riscv64, whose runtime
# then reads only uncompressed modules, which kiln-compile writes for CPU
# targets by default and always with --compression=none).
#   scripts/cross-build.sh ARCH [BUILD_DIR]
# Environment: KILN_CROSS_ZSTD=ON|OFF overrides the zstd choice.
# Exit status: 0 built, 1 build failed, 2 bad usage or missing compiler.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
arches="aarch64 riscv64"
arch="${1:-}"
case " $arches " in
  *" $arch "*) ;;
  *) echo "usage: cross-build.sh ARCH [BUILD_DIR]  (ARCH: ${arches// /, })" >&2; exit 2 ;;
esac
triple="$arch-linux-gnu"
build="${2:-$root/build-$arch}"
if ! command -v "$triple-gcc" >/dev/null; then
  echo "cross-build: $triple-gcc not found (scripts/bootstrap.sh with KILN_BOOTSTRAP_EXTRA=cross installs it)" >&2
  exit 2
fi
zstd="${KILN_CROSS_ZSTD:-}"
if [ -z "$zstd" ]; then
  zstd=OFF
  [ -e "/usr/lib/$triple/libzstd.a" ] && [ -e /usr/include/zstd.h ] && zstd=ON
fi

mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-$arch.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DKILN_RUNTIME_ONLY=ON -DKILN_STATIC_TOOLS=ON \
  -DKILN_RUNTIME_CUDA=OFF -DKILN_RUNTIME_ZSTD="$zstd" >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" --target kiln-run kiln-bench -j"${KILN_CROSS_JOBS:-2}" >"$build/build.log" 2>&1 || {
  tail -50 "$build/build.log" >&2; exit 1; }
cp -f "$build/tools/kiln-run/kiln-run" "$build/tools/kiln-bench/kiln-bench" "$build/"
echo "cross-build: $build/kiln-run and $build/kiln-bench for $arch (zstd $zstd)"
