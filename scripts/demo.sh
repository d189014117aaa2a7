#!/usr/bin/env bash
# README command 1: install what is missing, build, then compile a bundled
# model with kiln-compile and run it with kiln-run, next to the output
# numpy computed for it (samples/gen_samples.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
./scripts/bootstrap.sh
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >build/demo-configure.log 2>&1 \
  || { cat build/demo-configure.log; exit 1; }
echo "building Kiln (log: build/demo-build.log) ..."
cmake --build build -j"$(nproc)" >build/demo-build.log 2>&1 \
  || { tail -40 build/demo-build.log; exit 1; }

bin=build/tools
# Echo a command the way a user would type it (quoting arguments with spaces).
run() {
  local shown=() a
  for a in "$@"; do
    a=${a#"$bin"/*/}
    [[ $a == *" "* ]] && a="'$a'"
    shown+=("$a")
  done
  echo "\$ ${shown[*]}"
  "$@"
}

# An MLP: matmul + bias + relu, matmul + bias, softmax; weights are constants.
run $bin/kiln-compile/kiln-compile samples/mlp.mlir -o build/mlp.kiln
mapfile -t inputs < samples/mlp.inputs
args=()
for i in "${inputs[@]}"; do args+=("--input=$i"); done
run $bin/kiln-run/kiln-run --module=build/mlp.kiln --device=local-task "${args[@]}"
echo "expected (numpy): $(cat samples/mlp.expected)"
echo
echo "What the module holds (kiln-dump build/mlp.kiln shows it all):"
$bin/kiln-dump/kiln-dump build/mlp.kiln | sed -n -e '/^functions/,/^$/{/^ *pc /!p}' -e '/^size breakdown/,/^$/p'
