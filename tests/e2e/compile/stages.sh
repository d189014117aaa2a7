#!/usr/bin/env bash
# Every --compile-to stage, --print-ir-after-all, --print-ir-after=PASS and
# --timing along the whole pipeline on samples/simple_mul.mlir, checked
# with FileCheck (stages.check), and byte-identical output from two runs.
# usage: stages.sh KILN_COMPILE FILECHECK SAMPLE CHECKFILE WORKDIR
set -uo pipefail
compile=$1 filecheck=$2 sample=$3 checks=$4 work=$5
mkdir -p "$work"
if ! "$compile" "$sample" -o "$work/full.kiln" 2>"$work/full.err"; then
  cat "$work/full.err"; exit 1
fi
run() { # PREFIX ARGS...: kiln-compile output (stdout+stderr) through FileCheck
  local prefix=$1; shift
  echo "$ kiln-compile $sample $*"
  "$compile" "$sample" "$@" >"$work/$prefix.out" 2>&1 || { cat "$work/$prefix.out"; exit 1; }
  "$filecheck" "$checks" --check-prefix="$prefix" --input-file="$work/$prefix.out" || exit 1
}
run INPUT --compile-to=input -o -
run FLOW --compile-to=flow -o -
run HAL --compile-to=hal -o -
run CODEGEN --compile-to=codegen -o -
run LLVMIR --compile-to=llvm-ir -o -
run VM --compile-to=vm -o -
run ALL --compile-to=vm --print-ir-after-all -o /dev/null
run AFTER --print-ir-after=plan-memory,allocate-registers -o "$work/after.kiln"
run TIMING --timing -o "$work/timing.kiln"
# Deterministic: the same input and flags give the same bytes, and
# --timing is not recorded in the module.
"$compile" "$sample" -o "$work/again.kiln" || exit 1
cmp "$work/full.kiln" "$work/again.kiln" || { echo "FAIL: two compiles differ"; exit 1; }
cmp "$work/full.kiln" "$work/timing.kiln" || { echo "FAIL: --timing changed the module"; exit 1; }
echo "1 passed, 0 failed"
