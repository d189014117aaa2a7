#!/usr/bin/env bash
# Runs kiln-run under valgrind (memcheck, leaks included) on both local
# devices and fails on any report. Skipped (exit 77) in sanitizer builds,
# where valgrind cannot run ASan binaries.
# usage: valgrind_kiln_run.sh SANITIZE(ON|OFF) VALGRIND KILN_RUN MODULE [POOL]
set -u
sanitize=$1 valgrind=$2 kiln_run=$3 module=$4 pool=${5:-local-task}
if [ "$sanitize" = ON ]; then echo "skip: KILN_SANITIZE build"; exit 77; fi
if [ ! -x "$valgrind" ]; then echo "skip: no valgrind"; exit 77; fi
status=0
for device in local-sync "$pool"; do
  out=$("$valgrind" -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        "$kiln_run" --module="$module" --input=4xf32=1,2,3,4 \
        --input=4xf32=5,6,7,8 --device=$device 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ] || [ "$out" != "result[0]: 4xf32=5 12 21 32" ]; then
    echo "FAIL: valgrind run on $device (rc=$rc)"; status=1
  fi
done
# An error path too: wrong shape must not leak or touch bad memory.
out=$("$valgrind" -q --error-exitcode=9 --leak-check=full \
      --errors-for-leak-kinds=definite,indirect "$kiln_run" --module="$module" \
      --input=4xf32=1,2,3,4 --input=5xf32=1,2,3,4,5 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 1 ]; then echo "FAIL: error path under valgrind (rc=$rc)"; status=1; fi
exit $status
