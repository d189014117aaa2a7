#!/usr/bin/env bash
# README command 2: install what is missing, build, run the whole suite.
# Two builds: gcc (the normal build) and clang-19 with AddressSanitizer +
# UndefinedBehaviorSanitizer plus the libFuzzer targets, each run for a
# bounded time. The last line sums both ctest runs.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
./scripts/bootstrap.sh || exit 1
jobs=$(nproc)

run_suite() {  # run_suite BUILD_DIR LOG CMAKE_ARGS...
  local dir=$1 log=$2; shift 2
  cmake -S . -B "$dir" "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; echo "configure of $dir failed"; return 1; }
  cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 \
    || { tail -60 "$dir.build.log"; echo "build of $dir failed"; return 1; }
  ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 900 2>&1 | tee "$log"
}

mkdir -p build
status=0
run_suite build build/ctest.log -DCMAKE_BUILD_TYPE=RelWithDebInfo || status=1
if [ "${KILN_SKIP_SANITIZE:-0}" != 1 ]; then
  run_suite build-asan build/ctest-asan.log -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DKILN_SANITIZE=ON -DKILN_FUZZ=ON || status=1
fi

# Sum the per-test verdict lines of both runs ("Test #N: name ... Passed").
passed=0 failed=0 skipped=0
for log in build/ctest.log build/ctest-asan.log; do
  [ -f "$log" ] || continue
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$log")
  f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*(Failed|Exception|Timeout)|Not Run)' "$log")
  s=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log")
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
[ "$failed" -eq 0 ] || status=1
[ $((passed + failed)) -gt 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
