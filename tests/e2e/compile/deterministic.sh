#!/usr/bin/env bash
# The module does not depend on how it was compiled: for each input, the
# default compile, --jobs=1, --jobs=2, --jobs=7 with --timing, and the
# default again give the same bytes (executables compile on threads but
# are stored in module order; --jobs and --timing are not recorded).
# usage: deterministic.sh KILN_COMPILE WORKDIR INPUT...
set -uo pipefail
compile=$1 work=$2
shift 2
mkdir -p "$work"
n=0
for input in "$@"; do
  base=$work/$(basename "$input").default.kiln
  "$compile" "$input" -o "$base" || { echo "FAIL: $input does not compile"; exit 1; }
  for flags in "--jobs=1" "--jobs=2" "--jobs=7 --timing" ""; do
    out=$work/$(basename "$input").$(echo "$flags" | tr -c 'a-z0-9\n' '_').kiln
    # shellcheck disable=SC2086  # flags are words
    "$compile" "$input" -o "$out" $flags 2>/dev/null || { echo "FAIL: $input $flags"; exit 1; }
    cmp "$base" "$out" || { echo "FAIL: $input: '$flags' differs from the default compile"; exit 1; }
    n=$((n + 1))
  done
done
echo "$n passed, 0 failed"
