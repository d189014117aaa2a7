# Sourced by check_with_mlir_opt.sh and accept_corpus.sh: mlir_opt_each,
# mlir-opt's print of many files from one mlir-opt process instead of one
# process per file. --split-input-file parses and prints each file in a
# context of its own, exactly as a run on that file alone would, and the
# outputs come back joined at the marker lines. If mlir-opt rejects
# anything, each file is run alone so the rejected ones are known.
# Needs $mlir_opt (the mlir-opt to run).

mlir_opt_marker='// ==== mlir_opt_each split ===='

# mlir_opt_each DIR FILE...: the print of the i-th FILE (from 0) in
# DIR/i.mlir; a file mlir-opt rejects gets none (its error goes to stderr).
mlir_opt_each() {
  local dir=$1; shift
  mkdir -p "$dir"
  local i=0 f
  for f in "$@"; do
    [ "$i" -gt 0 ] && printf '%s\n' "$mlir_opt_marker"
    cat "$f"; i=$((i + 1))
  done > "$dir/all.mlir"
  if "$mlir_opt" --split-input-file="$mlir_opt_marker" \
       --output-split-marker="$mlir_opt_marker" "$dir/all.mlir" > "$dir/all.out" 2>/dev/null; then
    awk -v m="$mlir_opt_marker" -v d="$dir" 'BEGIN { n = 0 } $0 == m { n++; next }
      { print > (d "/" n ".mlir") }' "$dir/all.out"
    i=0
    for f in "$@"; do  # a file whose print is empty still gets one
      touch "$dir/$i.mlir"; i=$((i + 1))
    done
  else
    i=0
    for f in "$@"; do
      "$mlir_opt" "$f" > "$dir/$i.mlir" || rm -f "$dir/$i.mlir"
      i=$((i + 1))
    done
  fi
}
