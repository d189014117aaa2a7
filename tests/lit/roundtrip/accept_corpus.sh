#!/usr/bin/env bash
# accept_corpus.sh SCRATCH FILE.mlir...: whatever kiln-opt prints for each
# FILE, upstream mlir-opt accepts and prints exactly as it prints FILE
# itself. kiln-opt runs once per file (it is the tool under test); mlir-opt
# runs twice in all (mlir_opt_each.sh): once over kiln-opt's prints, once
# over the originals. Stops at the first file that fails, naming it.
# Environment: MLIR_OPT (default mlir-opt), KILN_OPT (default kiln-opt).
set -uo pipefail
mlir_opt=${MLIR_OPT:-mlir-opt}
kiln_opt=${KILN_OPT:-kiln-opt}
source "$(dirname "$0")/mlir_opt_each.sh"
tmp=$1; shift
rm -rf "$tmp"; mkdir -p "$tmp"
files=("$@")
kiln=()
for i in "${!files[@]}"; do
  "$kiln_opt" "${files[$i]}" > "$tmp/kiln.$i.mlir" \
    || { echo "kiln-opt failed on ${files[$i]}"; exit 1; }
  kiln+=("$tmp/kiln.$i.mlir")
done
mlir_opt_each "$tmp/via-kiln" "${kiln[@]}"
mlir_opt_each "$tmp/direct" "${files[@]}"
for i in "${!files[@]}"; do
  f=${files[$i]}
  [ -f "$tmp/via-kiln/$i.mlir" ] || { echo "mlir-opt rejects kiln-opt's output for $f"; exit 1; }
  { [ -f "$tmp/direct/$i.mlir" ] && diff -u "$tmp/direct/$i.mlir" "$tmp/via-kiln/$i.mlir"; } \
    || { echo "meaning changed: $f"; exit 1; }
done
