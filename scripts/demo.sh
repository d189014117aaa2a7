#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on
# a bundled sample. Until kiln-compile works end to end the sample module
# is assembled by samples/handmade (host bytecode + a real ELF kernel);
# the demo shows what is inside it, then runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
./scripts/bootstrap.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >build/demo-build.log 2>&1 \
  || { tail -40 build/demo-build.log; exit 1; }

module=build/samples/handmade/simple_mul.kiln
echo "\$ kiln-dump $module"
build/tools/kiln-dump/kiln-dump "$module"
echo
echo "\$ kiln-run --module=$module --input=4xf32=1,2,3,4 --input=4xf32=5,6,7,8"
build/tools/kiln-run/kiln-run --module="$module" \
  --input=4xf32=1,2,3,4 --input=4xf32=5,6,7,8
