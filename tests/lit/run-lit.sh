#!/usr/bin/env bash
# A small lit: runs the `RUN:` lines of one test file as shell pipelines.
# Usage: run-lit.sh FILE NAME=PATH...   Each NAME=PATH makes the tool
# callable by NAME in RUN lines. Substitutions: %s (the file), %t (a
# scratch path), %S (the file's folder). A line ending in `\` continues.
# `REQUIRES: NAME` skips (exit 77) when tool NAME was not found.
set -uo pipefail
file=$1; shift
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
for spec in "$@"; do
  name=${spec%%=*}; path=${spec#*=}
  [ -n "$path" ] && [ -x "$path" ] && ln -s "$path" "$bin/$name"
done
export PATH="$bin:$PATH"

for req in $(sed -n 's/.*REQUIRES:[[:space:]]*//p' "$file"); do
  if ! command -v "$req" >/dev/null; then
    echo "skipped: $req is not installed"; exit 77
  fi
done

tmp="$bin/t"
cmds=$(sed -n 's/^.*RUN:[[:space:]]\{0,1\}//p' "$file" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
[ -n "$cmds" ] || { echo "$file: no RUN lines"; exit 1; }
while IFS= read -r cmd; do
  cmd=${cmd//%s/$file}; cmd=${cmd//%t/$tmp}; cmd=${cmd//%S/$(dirname "$file")}
  echo "RUN: $cmd"
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED: $file"; exit 1
  fi
done <<< "$cmds"
