#!/usr/bin/env bash
# version.sh VERSION TOOL...: each TOOL --version prints exactly one line
# "NAME VERSION (revision REV[, DETAIL])", NAME the tool's file name, REV
# 12 hex digits (with -dirty) or "unknown", and exits 0; kiln-compile also
# names its LLVM.
version=$1; shift
[ $# -gt 0 ] || { echo "FAIL: no tools given"; exit 1; }
llvm_re=', LLVM [0-9]+\.[0-9]+\.[0-9]+\)$'
status=0
for tool in "$@"; do
  name=$(basename "$tool")
  out=$("$tool" --version 2>&1); rc=$?
  re="^$name ${version//./\\.} \\(revision ([0-9a-f]{12}(-dirty)?|unknown)(, [^)]*)?\\)$"
  if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] || ! [[ $out =~ $re ]]; then
    echo "FAIL: $name --version: rc=$rc: $out"; status=1
  elif [ "$name" = kiln-compile ] && ! [[ $out =~ $llvm_re ]]; then
    echo "FAIL: $name --version does not name LLVM: $out"; status=1
  else
    echo "ok   $out"
  fi
done
exit $status
