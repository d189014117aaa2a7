#!/usr/bin/env bash
# install_test.sh BUILD SRC WORK CMAKE CC VERSION [EXTRA_CFLAGS]
# Installs BUILD into a fresh prefix (WORK/prefix) and uses it as an
# application outside Kiln's tree would:
#  1. find_package(Kiln): tests/package/consumer builds compile_model
#     (Kiln::compiler), and samples/handmade/embed.c as run_static
#     (Kiln::runtime) and run_shared (Kiln::runtime_shared); compile_model
#     compiles samples/simple_mul.mlir in-process and both runners run it;
#  2. pkg-config: the same runner linked with kiln-runtime.pc's shared line
#     and with its --static line against libkiln_runtime.a alone, and
#     compile_model with kiln-compiler.pc;
#  3. the installed tools: kiln-compile --version, and kiln-run on the
#     module.
# Each runner must print 5 12 21 32; a static runner must not need
# libkiln_runtime.so, a shared one must. EXTRA_CFLAGS: the sanitizer
# flags the installed libraries were built with, which their users need.
# KEEP_WORK=1 keeps WORK for a look after a run.
set -uo pipefail
build=$1 src=$2 work=$3 cmake=$4 cc=$5 version=$6 extra=${7:-}
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/kiln-compile bin/kiln-run bin/kiln-dump include/kiln/runtime.h \
         include/kiln/compiler.h include/kiln/version.h lib/libkiln_runtime.a \
         lib/libkiln_runtime.so lib/libkiln_compiler.so lib/cmake/Kiln/KilnConfig.cmake \
         lib/cmake/Kiln/KilnConfigVersion.cmake lib/pkgconfig/kiln-runtime.pc \
         lib/pkgconfig/kiln-compiler.pc; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done
echo "ok   installed into $prefix"
# The shared libraries export their public headers' functions and nothing else.
for pair in kiln_runtime:runtime.h kiln_compiler:compiler.h; do
  so=$prefix/lib/lib${pair%%:*}.so header=$prefix/include/kiln/${pair#*:}
  syms=$(nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" {print $3}') \
    || fail "nm $so"
  [ -n "$syms" ] || fail "$so exports nothing"
  for sym in $syms; do
    grep -q "[ *]$sym(" "$header" || fail "$so exports $sym, which $header does not declare"
  done
  echo "ok   $(basename "$so") exports $(echo "$syms" | wc -l) functions, all declared in ${pair#*:}"
done

# needs BINARY yes|no: whether BINARY loads libkiln_runtime.so.
needs() {
  if [[ $(readelf -d "$1") == *"NEEDED"*"[libkiln_runtime.so"* ]]; then got=yes; else got=no; fi
  [ "$got" = "$2" ] || fail "$1: needs libkiln_runtime.so: $got, expected $2"
}
# runs BINARY MODULE: samples/handmade/embed.c, whose last line is the
# result.
runs() {
  out=$("$1" "$2" 2>&1) || fail "$1 $2: $out"
  [ "${out##*$'\n'}" = "5 12 21 32" ] || fail "$1 $2 printed: $out"
  echo "ok   $(basename "$1"): ${out//$'\n'/ | }"
}

# 1. find_package
"$cmake" -S "$src/tests/package/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake.log" 2>&1 && "$cmake" --build "$work/cmake" >>"$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log"; fail "the find_package consumer does not build"; }
"$work/cmake/compile_model" "$src/samples/simple_mul.mlir" "$work/m.kiln" >"$work/compile.log" 2>&1 \
  || { cat "$work/compile.log"; fail "compile_model (Kiln::compiler)"; }
grep -q "compiled with Kiln $version (revision .*), header $version\$" "$work/compile.log" \
  || fail "compile_model: $(cat "$work/compile.log")"
[[ $("$prefix/bin/kiln-dump" "$work/m.kiln") == *"input: simple_mul.mlir"* ]] \
  || fail "the in-process compile records no provenance"
runs "$work/cmake/run_static" "$work/m.kiln"
needs "$work/cmake/run_static" no
runs "$work/cmake/run_shared" "$work/m.kiln"
needs "$work/cmake/run_shared" yes

# 2. pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
lib=$(pkg-config --variable=libdir kiln-runtime) || fail "pkg-config kiln-runtime"
[ "$(pkg-config --modversion kiln-runtime)" = "$version" ] || fail "kiln-runtime.pc version"
static_libs=$(pkg-config --static --libs kiln-runtime)
for l in -lzstd -lpthread; do
  [[ " $static_libs " == *" $l "* ]] || fail "pkg-config --static --libs kiln-runtime lacks $l: $static_libs"
done
# shellcheck disable=SC2046,SC2086
"$cc" $extra -o "$work/pc_shared" "$src/samples/handmade/embed.c" \
  $(pkg-config --cflags --libs kiln-runtime) -Wl,-rpath,"$lib" || fail "pkg-config shared link"
runs "$work/pc_shared" "$work/m.kiln"
needs "$work/pc_shared" yes
# The --static line with the archive named, so the .so beside it is not taken.
# shellcheck disable=SC2086
"$cc" $extra -o "$work/pc_static" "$src/samples/handmade/embed.c" \
  $(pkg-config --cflags kiln-runtime) ${static_libs/-lkiln_runtime/-l:libkiln_runtime.a} \
  || fail "pkg-config --static link"
runs "$work/pc_static" "$work/m.kiln"
needs "$work/pc_static" no
# shellcheck disable=SC2046,SC2086
"$cc" $extra -o "$work/pc_compile" "$src/tests/package/consumer/compile_model.c" \
  $(pkg-config --cflags --libs kiln-compiler) -Wl,-rpath,"$lib" || fail "pkg-config kiln-compiler link"
"$work/pc_compile" "$src/samples/simple_mul.mlir" "$work/m2.kiln" llvm-cpu >/dev/null \
  || fail "pc_compile"
runs "$work/pc_static" "$work/m2.kiln"

# 3. the installed tools
[[ $("$prefix/bin/kiln-compile" --version) == "kiln-compile $version "* ]] || fail "kiln-compile --version"
out=$("$prefix/bin/kiln-run" --module="$work/m.kiln" --input=4xf32=1,2,3,4 --input=4xf32=5,6,7,8) \
  || fail "installed kiln-run: $out"
[ "$out" = "result[0]: 4xf32=5 12 21 32" ] || fail "installed kiln-run printed: $out"
echo "ok   installed kiln-run: $out"
[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
echo "all install checks passed"
